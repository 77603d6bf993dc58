/**
 * Anthropic's token counter, `POST /anthropic/v1/messages/count_tokens`: the same key, version
 * and model checks as Messages, no generation, `{input_tokens}` counted as the simulated reply
 * counts its prompt (so a count equals the input_tokens of the same request answered).
 */
import { sendJson } from '../respond.ts';
import { promptTokens } from '../reply.ts';
import { acceptedRequest, jsonBody, sendError } from './anthropic.ts';
import { simRequest } from './anthropic-reply.ts';
import { ANTHROPIC_MODELS, type ModelRules, VERTEX_MODELS, VERTEX_VERSIONS } from './anthropic-rules.ts';
import { requireGoogleToken } from './google-token.ts';
import type { SimApi, SimExchange } from './types.ts';

/** Generation settings the real counter refuses as extra inputs. */
const NOT_ACCEPTED = ['max_tokens', 'stream', 'stop_sequences', 'temperature', 'top_p', 'top_k'];

/** What both counters check of a body, and the count: as the simulated reply counts its prompt. */
function countAnswer(
  exchange: SimExchange,
  body: Record<string, unknown>,
  models: Readonly<Record<string, ModelRules>>,
  headers: Record<string, string>,
): void {
  const extra = NOT_ACCEPTED.find((name) => body[name] !== undefined);
  if (extra !== undefined) return sendError(exchange.res, 400, `${extra}: Extra inputs are not permitted`);
  if (!Array.isArray(body.messages)) return sendError(exchange.res, 400, 'messages: Field required');
  const model = String(body.model);
  if (!models[model]) return sendError(exchange.res, 404, `model: ${model}`);
  const count = promptTokens(simRequest(model, body));
  sendJson(exchange.res, 200, JSON.stringify({ input_tokens: count }), headers);
}

export const anthropicCountTokensApi: SimApi = {
  name: 'anthropic-count-tokens',
  matches: (method, path) => method === 'POST' && path === '/anthropic/v1/messages/count_tokens',
  async handle(context, exchange) {
    const accepted = acceptedRequest(context, exchange);
    if (!accepted) return;
    countAnswer(exchange, accepted.body, ANTHROPIC_MODELS, { 'request-id': 'req_simcount' });
  },
};

const VERTEX_COUNT_PATH =
  /^\/vertex\/v1\/projects\/[^/]+\/locations\/[^/]+\/publishers\/anthropic\/models\/count-tokens:rawPredict$/;

/**
 * Vertex's counter, `.../publishers/anthropic/models/count-tokens:rawPredict`: unlike Vertex's
 * Messages it names the model in the body, and like them the version too (as the Vertex SDK
 * sends it). Counts as the Anthropic counter does.
 */
export const vertexCountTokensApi: SimApi = {
  name: 'vertex-count-tokens',
  matches: (method, path) => method === 'POST' && VERTEX_COUNT_PATH.test(path),
  async handle(context, exchange) {
    if (!requireGoogleToken(context, exchange)) return;
    const body = jsonBody(exchange);
    if (!body) return;
    const version = body.anthropic_version;
    if (typeof version !== 'string' || !VERTEX_VERSIONS.has(version))
      return sendError(
        exchange.res,
        400,
        'anthropic_version: Input should be "vertex-2023-10-16" or "2026-10-21"',
      );
    countAnswer(exchange, body, VERTEX_MODELS, {});
  },
};
