/**
 * Azure OpenAI deployments: an Azure resource serves a model only under a deployment the
 * operator created and named, so the name sent upstream is the endpoint's mapping for the
 * offer, else the catalog's upstream model. The deployments that exist are listed by Azure
 * Resource Manager ("Deployments - List" of Microsoft.CognitiveServices, the management plane;
 * the resource's own data-plane list is absent from the API versions after 2023-03-15-preview):
 * `GET {management}/subscriptions/{id}/resourceGroups/{group}/providers/Microsoft.CognitiveServices/accounts/{account}/deployments?api-version=2024-10-01`,
 * answered `{"value": [{"name": ..., "properties": {"model": ...}}], "nextLink"?: ...}`.
 */
import {
  AdapterParseError,
  type DeploymentLister,
  type DeploymentsLocation,
  type DeploymentsPage,
} from '../adapter.ts';
import { isJsonObject, parseJson } from '../json.ts';
import type { EndpointParams } from '../model/profile.ts';

export const MANAGEMENT_API_VERSION = '2024-10-01';

export function azureDeployment(upstreamModel: string, endpoint: EndpointParams): string {
  return endpoint.deployments?.[upstreamModel] ?? upstreamModel;
}

function listUrl(location: DeploymentsLocation): string {
  const segment = encodeURIComponent;
  return (
    `${location.baseUrl}/subscriptions/${segment(location.subscriptionId)}` +
    `/resourceGroups/${segment(location.resourceGroup)}` +
    `/providers/Microsoft.CognitiveServices/accounts/${segment(location.account)}` +
    `/deployments?api-version=${MANAGEMENT_API_VERSION}`
  );
}

/** A next page elsewhere than the management endpoint would carry the token there: refused. */
function sameOrigin(link: string, location: DeploymentsLocation): string {
  let url: URL;
  try {
    url = new URL(link);
  } catch {
    throw new AdapterParseError('the deployments list has a nextLink that is not a URL');
  }
  if (url.origin !== new URL(location.baseUrl).origin)
    throw new AdapterParseError('the deployments list has a nextLink on another host');
  return url.href;
}

function parsePage(body: string, location: DeploymentsLocation): DeploymentsPage {
  const parsed = parseJson(body);
  if (!isJsonObject(parsed) || !Array.isArray(parsed.value))
    throw new AdapterParseError('the management API answered without a deployments list');
  const names = parsed.value.flatMap((item) =>
    isJsonObject(item) && typeof item.name === 'string' ? [item.name] : [],
  );
  const next = typeof parsed.nextLink === 'string' && parsed.nextLink !== '' ? parsed.nextLink : undefined;
  return { names, nextLink: next === undefined ? undefined : sameOrigin(next, location) };
}

export const azureDeployments: DeploymentLister = {
  deploymentOf: azureDeployment,
  buildRequest: (location, nextLink) => ({
    method: 'GET',
    url: nextLink === undefined ? listUrl(location) : sameOrigin(nextLink, location),
    headers: { accept: 'application/json' },
    body: '',
  }),
  parseResponse: parsePage,
  errorCode(body) {
    const parsed = parseJson(body);
    const error = isJsonObject(parsed) ? parsed.error : undefined;
    return isJsonObject(error) && typeof error.code === 'string' ? error.code : undefined;
  },
};
