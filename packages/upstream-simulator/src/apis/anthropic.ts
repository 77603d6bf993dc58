/**
 * Claude two ways: Anthropic's Messages API at `/anthropic/v1/messages` (API key as
 * `x-api-key` or Bearer, `anthropic-version` header) and Claude on Vertex AI at
 * `/vertex/v1/projects/{p}/locations/{l}/publishers/anthropic/models/{model}:rawPredict`
 * (Google access token, `anthropic_version` in the body, no `model`). Both answer in
 * Anthropic's JSON, event stream and error envelope, and refuse what the real services refuse.
 */
import { randomBytes } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Behaviour, behaviourFor } from '../faults.ts';
import { DEFAULT_REPLY_TOKENS, sendJson } from '../respond.ts';
import { messageBody, messageEvents, messagesReply, sseEvent } from './anthropic-reply.ts';
import {
  ANTHROPIC_MODELS,
  type ModelRules,
  refusal,
  VERSIONS,
  VERTEX_MODELS,
  VERTEX_VERSIONS,
} from './anthropic-rules.ts';
import { requireGoogleToken } from './google-token.ts';
import { pacedEvents } from './paced.ts';
import type { SimApi, SimContext, SimExchange } from './types.ts';

const ERROR_TYPES: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  429: 'rate_limit_error',
  529: 'overloaded_error',
};

function errorType(status: number): string {
  return ERROR_TYPES[status] ?? (status >= 500 ? 'api_error' : 'invalid_request_error');
}

function requestId(): string {
  return `req_sim${randomBytes(12).toString('hex')}`;
}

export function sendError(
  res: ServerResponse,
  status: number,
  message: string,
  headers: Record<string, string> = {},
): void {
  const id = requestId();
  const body = JSON.stringify({ type: 'error', error: { type: errorType(status), message }, request_id: id });
  sendJson(res, status, body, { 'request-id': id, ...headers });
}

type Body = Record<string, unknown>;

interface Call {
  readonly model: string;
  readonly rules: ModelRules;
  readonly version: string;
  readonly body: Body;
  readonly stream: boolean;
}

/** Deliberately internal-looking, so tests can prove the gateway never passes it on. */
const MIDSTREAM_FAILURE = sseEvent('error', {
  error: { type: 'api_error', message: 'Internal server error on sim-node-3.internal.example.com.' },
}).text;

function fail(res: ServerResponse, behaviour: Behaviour): void {
  const status = behaviour.failStatus ?? 500;
  const message =
    behaviour.failMessage ??
    (status === 529
      ? 'Overloaded'
      : `Simulated failure ${status} on sim-node-3.internal.example.com (10.0.0.7)`);
  sendError(res, status, message, behaviour.retryAfter ? { 'retry-after': behaviour.retryAfter } : {});
}

async function answer(context: SimContext, exchange: SimExchange, call: Call): Promise<void> {
  const { state } = context;
  const { req, res } = exchange;
  const refused = refusal(call.body, call.version, call.rules);
  if (refused) return sendError(res, refused.status, refused.message);
  const behaviour = behaviourFor(req.headers, call.body, state.options.behaviour ?? {});
  if (behaviour.hang === 'headers') return;
  if (behaviour.failStatus !== undefined) return fail(res, behaviour);
  const reply = messagesReply(
    call.model,
    call.body,
    behaviour.replyTokens ?? DEFAULT_REPLY_TOKENS,
    behaviour.toolTurn,
  );
  exchange.reportUsage(reply.reply.usage, reply.cache);
  if (call.stream)
    return pacedEvents(state, res, messageEvents(reply), behaviour, {
      headers: { 'request-id': requestId() },
      failure: MIDSTREAM_FAILURE,
    });
  if (behaviour.hang === 'body') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.flushHeaders();
    return;
  }
  const delay =
    (behaviour.firstTokenDelayMs ?? 0) + (behaviour.tokenDelayMs ?? 0) * reply.reply.tokens.length;
  if (delay > 0) await sleep(delay, undefined, { signal: state.closing }).catch(() => {});
  if (!res.destroyed) sendJson(res, 200, messageBody(reply), { 'request-id': requestId() });
}

export function jsonBody(exchange: SimExchange): Body | undefined {
  const { body } = exchange;
  if (typeof body === 'object' && body !== null && !Array.isArray(body)) return body as Body;
  sendError(exchange.res, 400, 'The request body is not valid JSON.');
  return undefined;
}

export function header(exchange: SimExchange, name: string): string | undefined {
  const value = exchange.req.headers[name];
  return typeof value === 'string' ? value : undefined;
}

/** The key as older clients send it (`x-api-key`) or as SDK 1.x does (`Authorization: Bearer`). */
export function apiKey(exchange: SimExchange): string | undefined {
  const bearer = header(exchange, 'authorization');
  return header(exchange, 'x-api-key') ?? (bearer?.startsWith('Bearer ') ? bearer.slice(7) : undefined);
}

/**
 * What Anthropic checks before it reads a request (the key, then `anthropic-version`), then the
 * JSON body with the version; undefined once the refusal is sent. Shared by Messages and
 * count_tokens.
 */
export function acceptedRequest(
  context: SimContext,
  exchange: SimExchange,
): { body: Body; version: string } | undefined {
  if (apiKey(exchange) !== context.credentials.anthropicKey) {
    sendError(exchange.res, 401, 'invalid x-api-key');
    return undefined;
  }
  const version = header(exchange, 'anthropic-version');
  if (version === undefined || !VERSIONS.has(version)) {
    sendError(exchange.res, 400, `anthropic-version: "${version ?? ''}" is not a valid version`);
    return undefined;
  }
  const body = jsonBody(exchange);
  return body ? { body, version } : undefined;
}

export const anthropicApi: SimApi = {
  name: 'anthropic',
  matches: (method, path) => method === 'POST' && path === '/anthropic/v1/messages',
  async handle(context, exchange) {
    const accepted = acceptedRequest(context, exchange);
    if (!accepted) return;
    const { body, version } = accepted;
    const model = String(body.model);
    const rules = ANTHROPIC_MODELS[model];
    if (!rules) return sendError(exchange.res, 404, `model: ${model}`);
    await answer(context, exchange, { model, rules, version, body, stream: body.stream === true });
  },
};

// `count-tokens:rawPredict` is Vertex's token counter, not a model (anthropic-count.ts).
const VERTEX_PATH =
  /^\/vertex\/v1\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/anthropic\/models\/(?!count-tokens:)([^/:]+):(rawPredict|streamRawPredict)$/;

export const vertexClaudeApi: SimApi = {
  name: 'vertex-claude',
  matches: (method, path) => method === 'POST' && VERTEX_PATH.test(path),
  async handle(context, exchange) {
    if (!requireGoogleToken(context, exchange)) return;
    const [, , , rawModel = '', method] = VERTEX_PATH.exec(exchange.path) ?? [];
    const body = jsonBody(exchange);
    if (!body) return;
    const version = body.anthropic_version;
    if (typeof version !== 'string' || !VERTEX_VERSIONS.has(version))
      return sendError(
        exchange.res,
        400,
        'anthropic_version: Input should be "vertex-2023-10-16" or "2026-10-21"',
      );
    if (body.model !== undefined)
      return sendError(exchange.res, 400, 'model: Extra inputs are not permitted');
    const model = decodeURIComponent(rawModel);
    const rules = VERTEX_MODELS[model];
    if (!rules) {
      const error = {
        code: 404,
        message: `Publisher Model \`${model}\` was not found.`,
        status: 'NOT_FOUND',
      };
      return sendJson(exchange.res, 404, JSON.stringify({ error }));
    }
    const { anthropic_version: _version, ...rest } = body;
    await answer(context, exchange, {
      model,
      rules,
      version,
      body: rest,
      stream: method === 'streamRawPredict',
    });
  },
};
