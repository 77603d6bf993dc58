/**
 * OpenAI's Responses API two ways: OpenAI at `/openai/v1/responses` (Bearer key) and Azure
 * OpenAI at `/azure/openai/v1/responses` (v1 API, the deployment as `model`, `api-key` header) or
 * `/azure/openai/responses?api-version=...` (classic). JSON or the event stream, per-model effort
 * values and flex checked as for Chat Completions, errors in OpenAI's envelope, and
 * `previous_response_id` refused as a service without stored responses would.
 */
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { errorBody } from '../chunks.ts';
import { type Behaviour, behaviourFor } from '../faults.ts';
import { DEFAULT_REPLY_TOKENS, sendJson } from '../respond.ts';
import { deployedModel } from './azure-resource.ts';
import { bearer, invalid, refusedOptions } from './openai.ts';
import { AZURE_FLEX, OPENAI_FLEX } from './openai-models.ts';
import { responseBody, responseEvents, responsesReply } from './responses-reply.ts';
import { pacedEvents } from './paced.ts';
import type { SimApi, SimContext, SimExchange } from './types.ts';

type Body = Record<string, unknown>;

/** A mid-stream failure is `response.failed`, deliberately internal-looking. */
const MIDSTREAM_FAILURE = `event: response.failed\ndata: ${JSON.stringify({
  type: 'response.failed',
  response: {
    status: 'failed',
    error: { code: 'server_error', message: 'Internal error on sim-node-3.internal.example.com.' },
  },
})}\n\n`;

function fail(res: ServerResponse, behaviour: Behaviour): void {
  const status = behaviour.failStatus ?? 500;
  const message =
    behaviour.failMessage ??
    `Simulated failure ${status} on sim-node-3.internal.example.com (10.0.0.7), key sk-sim-0123456789abcdef`;
  const type = status === 429 ? 'rate_limit_error' : status >= 500 ? 'server_error' : 'invalid_request_error';
  const headers: Record<string, string> = behaviour.retryAfter ? { 'retry-after': behaviour.retryAfter } : {};
  sendJson(res, status, errorBody(message, type, null), headers);
}

/** What the Responses API refuses in the body itself; true when answered. */
function refusedBody(exchange: SimExchange, body: Body): boolean {
  if (typeof body.model !== 'string' || (typeof body.input !== 'string' && !Array.isArray(body.input))) {
    invalid(exchange, 400, "Missing required parameter: 'model' and 'input'.", 'missing_required_parameter');
    return true;
  }
  if (typeof body.previous_response_id === 'string') {
    const message = `Previous response with id '${body.previous_response_id}' not found.`;
    invalid(exchange, 400, message, 'previous_response_not_found', 'previous_response_id');
    return true;
  }
  return false;
}

async function answer(context: SimContext, exchange: SimExchange, model: string, flex: ReadonlySet<string>) {
  const body = (exchange.body ?? {}) as Body;
  if (refusedBody(exchange, body)) return;
  const reasoning =
    typeof body.reasoning === 'object' && body.reasoning !== null ? (body.reasoning as Body) : {};
  // The effort and tier checks are Chat Completions'; the Responses API refuses the same values.
  const options = { reasoning_effort: reasoning.effort, service_tier: body.service_tier };
  if (refusedOptions({ ...exchange, body: options }, model, flex)) return;
  const { state } = context;
  const behaviour = behaviourFor(exchange.req.headers, body, state.options.behaviour ?? {});
  if (behaviour.hang === 'headers') return;
  if (behaviour.failStatus !== undefined) return fail(exchange.res, behaviour);
  const reply = responsesReply(
    model,
    body,
    behaviour.replyTokens ?? DEFAULT_REPLY_TOKENS,
    behaviour.toolTurn,
  );
  exchange.reportUsage(reply.reply.usage);
  if (body.stream === true)
    return pacedEvents(state, exchange.res, responseEvents(reply), behaviour, { failure: MIDSTREAM_FAILURE });
  if (behaviour.hang === 'body') {
    exchange.res.writeHead(200, { 'content-type': 'application/json' });
    exchange.res.flushHeaders();
    return;
  }
  const delay =
    (behaviour.firstTokenDelayMs ?? 0) + (behaviour.tokenDelayMs ?? 0) * reply.reply.tokens.length;
  if (delay > 0) await sleep(delay, undefined, { signal: state.closing }).catch(() => {});
  if (!exchange.res.destroyed) sendJson(exchange.res, 200, responseBody(reply));
}

export const openAIResponsesApi: SimApi = {
  name: 'openai-responses',
  matches: (method, path) => method === 'POST' && path === '/openai/v1/responses',
  async handle(context, exchange) {
    if (bearer(exchange) !== context.credentials.openaiKey) {
      invalid(exchange, 401, 'Incorrect API key provided.', 'invalid_api_key');
      return;
    }
    const body = (exchange.body ?? {}) as Body;
    await answer(context, exchange, String(body.model), OPENAI_FLEX);
  },
};

export const azureResponsesApi: SimApi = {
  name: 'azure-openai-responses',
  matches: (method, path) =>
    method === 'POST' && (path === '/azure/openai/v1/responses' || path === '/azure/openai/responses'),
  async handle(context, exchange) {
    if (exchange.req.headers['api-key'] !== context.credentials.azureKey) {
      const message = 'Access denied due to invalid subscription key or wrong API endpoint.';
      sendJson(exchange.res, 401, JSON.stringify({ error: { code: '401', message } }));
      return;
    }
    if (exchange.path === '/azure/openai/responses' && !exchange.query.get('api-version')) {
      invalid(exchange, 404, 'Resource not found', '404');
      return;
    }
    const body = (exchange.body ?? {}) as Body;
    // Without a model the body is refused as the Responses API refuses it (answer's checks).
    const model = typeof body.model === 'string' ? deployedModel(context, exchange, body.model) : '';
    if (model !== undefined) await answer(context, exchange, model, AZURE_FLEX);
  },
};
