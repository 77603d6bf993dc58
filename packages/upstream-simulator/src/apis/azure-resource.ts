/**
 * The simulator's Azure OpenAI resource beside its inference paths: the deployments it has
 * (an inference call for any other deployment is Azure's 404 `DeploymentNotFound`), Azure
 * Resource Manager's deployments list for it ("Deployments - List" of
 * Microsoft.CognitiveServices), and an App Service managed identity endpoint
 * (`IDENTITY_ENDPOINT` + `IDENTITY_HEADER`, API version 2019-08-01) that issues the Entra
 * tokens Resource Manager requires, as it checks them: for its own audience only.
 */
import { randomBytes } from 'node:crypto';
import { sendJson } from '../respond.ts';
import { OPENAI_EFFORTS, OPENAI_EMBEDDING_MODELS } from './openai-models.ts';
import type { SimApi, SimContext, SimExchange } from './types.ts';

export const AZURE_IDENTITY_PATH = '/azure/identity/token';
const MANAGEMENT_PREFIX = '/azure/management';
const MANAGEMENT_AUDIENCE = 'https://management.azure.com';
const LIFETIME_S = 3600;
const LIST =
  /^\/azure\/management\/subscriptions\/([^/]+)\/resourceGroups\/([^/]+)\/providers\/Microsoft\.CognitiveServices\/accounts\/([^/]+)\/deployments$/i;

/** Where the simulated resource lives in Resource Manager, and its deployments. */
export interface AzureResourceOptions {
  readonly subscriptionId?: string;
  readonly resourceGroup?: string;
  readonly account?: string;
  /** Deployment name -> model; default: one deployment per known OpenAI model, named after it. */
  readonly deployments?: Readonly<Record<string, string>>;
}

export interface AzureResource {
  readonly subscriptionId: string;
  readonly resourceGroup: string;
  readonly account: string;
  readonly deployments: ReadonlyMap<string, string>;
  /** Entra tokens the identity endpoint issued: audience and expiry (ms). */
  readonly tokens: Map<string, { readonly audience: string; readonly expiresAt: number }>;
}

export const DEFAULT_AZURE_RESOURCE = {
  subscriptionId: '00000000-0000-4000-8000-000000000005',
  resourceGroup: 'sim-rg',
  account: 'sim-openai',
} as const;

export function azureResource(options: AzureResourceOptions = {}): AzureResource {
  const deployments =
    options.deployments ??
    Object.fromEntries(
      [...Object.keys(OPENAI_EFFORTS), ...Object.keys(OPENAI_EMBEDDING_MODELS)].map((model) => [
        model,
        model,
      ]),
    );
  return {
    subscriptionId: options.subscriptionId ?? DEFAULT_AZURE_RESOURCE.subscriptionId,
    resourceGroup: options.resourceGroup ?? DEFAULT_AZURE_RESOURCE.resourceGroup,
    account: options.account ?? DEFAULT_AZURE_RESOURCE.account,
    deployments: new Map(Object.entries(deployments)),
    tokens: new Map(),
  };
}

function armError(exchange: SimExchange, status: number, code: string, message: string): void {
  sendJson(exchange.res, status, JSON.stringify({ error: { code, message } }));
}

/** The model behind an inference call's deployment; answers Azure's 404 and returns undefined if none. */
export function deployedModel(
  context: SimContext,
  exchange: SimExchange,
  deployment: string,
): string | undefined {
  const model = context.azure.deployments.get(deployment);
  if (model === undefined) {
    const message =
      'The API deployment for this resource does not exist. If you created the deployment within the last 5 minutes, please wait a moment and try again.';
    armError(exchange, 404, 'DeploymentNotFound', message);
  }
  return model;
}

/** `gpt-5.4-mini-2026-03-17` is model `gpt-5.4-mini`, version `2026-03-17`, as Azure lists them. */
function modelOf(id: string): { format: string; name: string; version: string } {
  const dated = /^(.+)-(\d{4}-\d{2}-\d{2})$/.exec(id);
  return { format: 'OpenAI', name: dated?.[1] ?? id, version: dated?.[2] ?? '1' };
}

function bearerToken(exchange: SimExchange): string | undefined {
  const header = exchange.req.headers.authorization;
  return typeof header === 'string' && header.startsWith('Bearer ') ? header.slice(7) : undefined;
}

function listDeployments(context: SimContext, exchange: SimExchange): void {
  const issued = context.azure.tokens.get(bearerToken(exchange) ?? '');
  if (!issued || issued.expiresAt < Date.now() || issued.audience !== MANAGEMENT_AUDIENCE)
    return armError(exchange, 401, 'InvalidAuthenticationToken', 'The access token is invalid.');
  if (!exchange.query.get('api-version'))
    return armError(
      exchange,
      400,
      'MissingApiVersionParameter',
      'The api-version query parameter (?api-version=) is required for all requests.',
    );
  const [, subscription = '', group = '', account = ''] = LIST.exec(exchange.path) ?? [];
  const { azure } = context;
  if (subscription !== azure.subscriptionId || group.toLowerCase() !== azure.resourceGroup.toLowerCase())
    return armError(exchange, 404, 'ResourceGroupNotFound', `Resource group '${group}' could not be found.`);
  if (account.toLowerCase() !== azure.account.toLowerCase())
    return armError(
      exchange,
      404,
      'ResourceNotFound',
      `The Resource 'Microsoft.CognitiveServices/accounts/${account}' under resource group '${group}' was not found.`,
    );
  const accountId = `/subscriptions/${subscription}/resourceGroups/${azure.resourceGroup}/providers/Microsoft.CognitiveServices/accounts/${azure.account}`;
  const value = [...azure.deployments].map(([name, model]) => ({
    id: `${accountId}/deployments/${name}`,
    name,
    type: 'Microsoft.CognitiveServices/accounts/deployments',
    sku: { name: 'Standard', capacity: 10 },
    properties: { model: modelOf(model), provisioningState: 'Succeeded' },
  }));
  sendJson(exchange.res, 200, JSON.stringify({ value }));
}

/** App Service's identity endpoint: a token for `resource`, when the secret header is right. */
function issueToken(context: SimContext, exchange: SimExchange): void {
  if (exchange.req.headers['x-identity-header'] !== context.credentials.azureIdentityHeader) {
    sendJson(
      exchange.res,
      400,
      JSON.stringify({ error: 'invalid_request', error_description: 'Bad header.' }),
    );
    return;
  }
  const resource = exchange.query.get('resource');
  if (!resource) {
    sendJson(
      exchange.res,
      400,
      JSON.stringify({ error: 'invalid_request', error_description: 'No resource.' }),
    );
    return;
  }
  const audience = resource.replace(/\/+$/, '').replace(/\/\.default$/, '');
  const token = `eyJ0eXAiOiJKV1Qi.sim-entra-${randomBytes(24).toString('base64url')}`;
  const expiresAt = Date.now() + LIFETIME_S * 1000;
  context.azure.tokens.set(token, { audience, expiresAt });
  sendJson(
    exchange.res,
    200,
    JSON.stringify({
      access_token: token,
      expires_on: String(Math.floor(expiresAt / 1000)),
      resource,
      token_type: 'Bearer',
    }),
  );
}

export const azureManagementApi: SimApi = {
  name: 'azure-management',
  matches: (method, path) =>
    method === 'GET' && (path === AZURE_IDENTITY_PATH || path.startsWith(`${MANAGEMENT_PREFIX}/`)),
  async handle(context, exchange) {
    if (exchange.path === AZURE_IDENTITY_PATH) return issueToken(context, exchange);
    if (LIST.test(exchange.path)) return listDeployments(context, exchange);
    armError(exchange, 404, 'NoRegisteredProviderFound', 'No registered resource provider found.');
  },
};
