/**
 * OpenAI Chat Completions three ways: a local OpenAI-compatible server (vLLM, Ollama) at
 * `/v1` with no authentication; OpenAI itself at `/openai/v1` (Bearer key, per-model effort
 * values and flex as OpenAI checks them); Azure OpenAI at `/azure/openai` (the v1 API with the
 * deployment as `model`, or classic deployments with `api-version`; `api-key` header).
 */
import { errorBody } from '../chunks.ts';
import { chat, sendJson } from '../respond.ts';
import { deployedModel } from './azure-resource.ts';
import { AZURE_FLEX, OPENAI_EFFORTS, OPENAI_FLEX } from './openai-models.ts';
import type { SimApi, SimContext, SimExchange } from './types.ts';

export function invalid(
  exchange: SimExchange,
  status: number,
  message: string,
  code: string | null,
  param?: string,
): void {
  const type = status === 401 ? 'invalid_request_error' : 'invalid_request_error';
  sendJson(exchange.res, status, JSON.stringify({ error: { message, type, param: param ?? null, code } }));
}

function field(body: unknown, name: string): unknown {
  return typeof body === 'object' && body !== null ? (body as Record<string, unknown>)[name] : undefined;
}

/** What OpenAI refuses about effort and tier for a model it knows; true when answered. */
export function refusedOptions(
  exchange: SimExchange,
  model: string,
  flexModels: ReadonlySet<string>,
): boolean {
  const effort = field(exchange.body, 'reasoning_effort');
  const efforts = OPENAI_EFFORTS[model];
  if (effort !== undefined && efforts && !efforts.includes(String(effort))) {
    invalid(
      exchange,
      400,
      `Unsupported value: 'reasoning_effort' does not support '${String(effort)}' with this model. Supported values are: ${efforts.map((e) => `'${e}'`).join(', ')}.`,
      'unsupported_value',
      'reasoning_effort',
    );
    return true;
  }
  if (field(exchange.body, 'service_tier') === 'flex' && !flexModels.has(model)) {
    invalid(exchange, 400, `Flex processing is not available for model '${model}'.`, null, 'service_tier');
    return true;
  }
  return false;
}

export function bearer(exchange: SimExchange): string | undefined {
  const header = exchange.req.headers.authorization;
  return typeof header === 'string' && header.startsWith('Bearer ') ? header.slice(7) : undefined;
}

export const openAICompatibleApi: SimApi = {
  name: 'openai-compatible',
  matches: (method, path) => method === 'POST' && path === '/v1/chat/completions',
  handle: (context, exchange) => chat(context.state, exchange),
};

export const openAIApi: SimApi = {
  name: 'openai',
  matches: (method, path) => method === 'POST' && path === '/openai/v1/chat/completions',
  async handle(context: SimContext, exchange: SimExchange) {
    if (bearer(exchange) !== context.credentials.openaiKey) {
      invalid(exchange, 401, 'Incorrect API key provided.', 'invalid_api_key');
      return;
    }
    const model = String(field(exchange.body, 'model'));
    if (refusedOptions(exchange, model, OPENAI_FLEX)) return;
    await chat(context.state, exchange);
  },
};

const CLASSIC = /^\/azure\/openai\/deployments\/([^/]+)\/chat\/completions$/;

export const azureOpenAIApi: SimApi = {
  name: 'azure-openai',
  matches: (method, path) =>
    method === 'POST' && (path === '/azure/openai/v1/chat/completions' || CLASSIC.test(path)),
  async handle(context: SimContext, exchange: SimExchange) {
    const key = exchange.req.headers['api-key'];
    if (key !== undefined && exchange.req.headers.authorization !== undefined) {
      invalid(exchange, 400, 'Send either api-key or Authorization, not both.', 'invalid_request');
      return;
    }
    if (key !== context.credentials.azureKey) {
      const message = 'Access denied due to invalid subscription key or wrong API endpoint.';
      sendJson(exchange.res, 401, JSON.stringify({ error: { code: '401', message } }));
      return;
    }
    const classic = CLASSIC.exec(exchange.path);
    if (classic && !exchange.query.get('api-version')) {
      invalid(exchange, 404, 'Resource not found', '404');
      return;
    }
    // Classic: the deployment in the path wins over any `model` in the body.
    const deployment = classic ? decodeURIComponent(classic[1] ?? '') : String(field(exchange.body, 'model'));
    const model = deployedModel(context, exchange, deployment);
    if (model === undefined || refusedOptions(exchange, model, AZURE_FLEX)) return;
    // Azure answers with the deployment's model, whatever the deployment is called.
    const body = { ...(exchange.body as Record<string, unknown>), model };
    await chat(context.state, { ...exchange, body });
  },
};

export { errorBody };
