/**
 * Deployments for `catalog-check --credentials`: for each endpoint with `management`, the
 * deployments that exist are listed through the management API with the management identity,
 * and every deployment the endpoint would call (its `deployments` mapping, else the catalog's
 * id) that is not among them is a problem naming the model and the setting. Without this,
 * a missing deployment shows only as a 502 on the first request for that model.
 */
import {
  adapterFor,
  type DeploymentLister,
  type DeploymentsLocation,
  type UpstreamHttpRequest,
} from '@app/provider-adapters';
import { createSigner, type Signer } from '../upstream/credentials/index.ts';
import type { Catalog } from './catalog.ts';
import { PROBE_TIMEOUT_MS } from './catalog-check-ambient.ts';
import type { Endpoint, Upstreams } from './upstreams.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** ARM pages hold up to 1,000 deployments or so; this bounds a misbehaving nextLink chain. */
const MAX_PAGES = 50;

async function send(request: UpstreamHttpRequest, signer: Signer, signal: AbortSignal) {
  const headers = await signer.sign(request, signal);
  const response = await fetch(request.url, { method: request.method, headers, signal });
  return { status: response.status, body: await response.text() };
}

/** The names of every deployment of the account, or why they could not be listed. */
async function listed(
  lister: DeploymentLister,
  location: DeploymentsLocation,
  signer: Signer,
): Promise<Set<string> | string> {
  const signal = AbortSignal.timeout(PROBE_TIMEOUT_MS);
  const names = new Set<string>();
  let next: string | undefined;
  try {
    for (let page = 0; page < MAX_PAGES; page++) {
      const { status, body } = await send(lister.buildRequest(location, next), signer, signal);
      if (status < 200 || status > 299)
        return `the deployments list was refused: HTTP ${status} ${lister.errorCode(body) ?? ''}`.trim();
      const parsed = lister.parseResponse(body, location);
      for (const name of parsed.names) names.add(name);
      next = parsed.nextLink;
      if (next === undefined) return names;
    }
    return `the deployments list has more than ${MAX_PAGES} pages`;
  } catch (error) {
    if (signal.aborted) return `no deployments list within ${PROBE_TIMEOUT_MS / 1000} s`;
    return `the deployments list could not be read: ${(error as Error).message}`;
  }
}

interface Sources {
  readonly upstreams: Upstreams;
  readonly catalog: Catalog;
  readonly env: Env;
}

/** Each model this endpoint serves with the deployment it would be called at. */
function calledDeployments(endpoint: Endpoint, lister: DeploymentLister, { upstreams, catalog }: Sources) {
  return catalog.models.flatMap((model) => {
    const offer = model.offers.get(endpoint.provider);
    if (!offer || upstreams.endpoint(endpoint.provider, model.family, model.vendor) !== endpoint) return [];
    const upstreamModel = offer.profile.upstreamModel;
    const mapped = endpoint.params.deployments?.[upstreamModel] !== undefined;
    return [{ model: model.id, deployment: lister.deploymentOf(upstreamModel, endpoint.params), mapped }];
  });
}

async function endpointProblems(endpoint: Endpoint, sources: Sources): Promise<string[]> {
  const lister = adapterFor(endpoint.adapter).deployments;
  const management = endpoint.management;
  if (lister === undefined || management === undefined) return [];
  const { location } = management;
  let signer: Signer;
  try {
    signer = createSigner(management.auth, { env: sources.env });
  } catch (error) {
    return [`${endpoint.path}.management.auth: ${(error as Error).message}`];
  }
  const names = await listed(lister, location, signer).finally(() => signer.close());
  if (typeof names === 'string') return [`${endpoint.path}.management: ${names}`];
  return calledDeployments(endpoint, lister, sources)
    .filter(({ deployment }) => !names.has(deployment))
    .map(({ model, deployment, mapped }) =>
      mapped
        ? `${endpoint.path}.deployments: ${model} is mapped to deployment '${deployment}', which account ${location.account} does not have`
        : `${endpoint.path}: ${model} is called at deployment '${deployment}' (its catalog id), which account ${location.account} does not have; map it to an existing deployment in ${endpoint.path}.deployments`,
    );
}

/** Lists the deployments of every endpoint that says where (`management`) and checks them. */
export async function deploymentProblems(
  upstreams: Upstreams,
  catalog: Catalog,
  env: Env,
): Promise<{ checked: number; problems: string[] }> {
  const endpoints = upstreams.all().filter((endpoint) => endpoint.management !== undefined);
  const sources = { upstreams, catalog, env };
  const results = await Promise.all(endpoints.map((endpoint) => endpointProblems(endpoint, sources)));
  return { checked: endpoints.length, problems: results.flat() };
}
