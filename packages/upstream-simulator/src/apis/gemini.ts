/**
 * Gemini two ways: the Developer API at `/gemini/v1beta/models/{model}:generateContent`
 * (`x-goog-api-key` or `?key=`; flex as the body's `serviceTier`) and Vertex AI at
 * `/vertex/{v1|v1beta1}/projects/{p}/locations/{l}/publishers/google/models/{model}:...`
 * (an access token from the simulator's token endpoint; flex as a header, global only).
 * Streams are SSE with `?alt=sse`, a JSON array without it, as Google sends them.
 */
import type { ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { behaviourFor, type Behaviour } from '../faults.ts';
import { buildReply, contentText } from '../reply.ts';
import { DEFAULT_REPLY_TOKENS, sendJson, type SimState } from '../respond.ts';
import {
  checkFields,
  checkGeminiTier,
  checkSignatures,
  checkThinking,
  checkVertexTier,
  GEMINI_API_FIELDS,
  GEMINI_MODELS,
  type GoogleError,
  VERTEX_FIELDS,
  vertexTier,
} from './gemini-checks.ts';
import { type Answer, responseBody, searchRequested, simRequestOf, streamChunks } from './gemini-reply.ts';
import { requireGoogleToken } from './google-token.ts';
import type { SimApi, SimContext, SimExchange } from './types.ts';

const GEMINI_PATH = /^\/gemini\/v1beta\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;
const VERTEX_PATH =
  /^\/vertex\/v1(?:beta1)?\/projects\/([^/]+)\/locations\/([^/]+)\/publishers\/google\/models\/([^/:]+):(generateContent|streamGenerateContent)$/;

const STATUS_NAMES: Readonly<Record<number, string>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

export function sendError(
  res: ServerResponse,
  error: GoogleError,
  headers: Record<string, string> = {},
): void {
  sendJson(res, error.code, JSON.stringify({ error }), headers);
}

/** A requested failure, in Google's envelope; a 429 says when to retry both ways Google does. */
export function failure(behaviour: Behaviour): { error: GoogleError; headers: Record<string, string> } {
  const code = behaviour.failStatus ?? 500;
  // Deliberately internal-looking, so tests can prove the gateway never passes it on.
  const message =
    behaviour.failMessage ??
    `Simulated failure ${code} on sim-node-3.internal.example.com (10.0.0.7), project 4829157`;
  const retry = behaviour.retryAfter;
  const details =
    code === 429 && retry
      ? [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retry}s` }]
      : [];
  return {
    error: {
      code,
      status: STATUS_NAMES[code] ?? 'UNKNOWN',
      message,
      ...(details.length > 0 ? { details } : {}),
    },
    headers: retry ? { 'retry-after': retry } : {},
  };
}

interface Call {
  readonly model: string;
  readonly stream: boolean;
  readonly vertex: boolean;
  readonly flex: boolean;
}

function lastUserText(body: Readonly<Record<string, unknown>>): string {
  const contents = Array.isArray(body.contents)
    ? (body.contents as Array<{ role?: unknown; parts?: unknown }>)
    : [];
  const user = contents.findLast((content) => content.role !== 'model');
  return contentText(user?.parts).trim();
}

/** Checks the body as Google would, then answers (or fails as the request or configuration asks). */
async function generate(context: SimContext, exchange: SimExchange, call: Call): Promise<void> {
  const body = exchange.body as Readonly<Record<string, unknown>>;
  const refused = checkThinking(call.model, body) ?? checkSignatures(call.model, body);
  if (refused) return sendError(exchange.res, refused);
  // Gemini refuses unknown body fields, so only headers and the configuration can ask for faults.
  const behaviour = behaviourFor(exchange.req.headers, {}, context.state.options.behaviour ?? {});
  if (behaviour.hang === 'headers') return;
  if (behaviour.failStatus !== undefined) {
    const { error, headers } = failure(behaviour);
    return sendError(exchange.res, error, headers);
  }
  const reply = buildReply(
    simRequestOf(call.model, body),
    behaviour.replyTokens ?? DEFAULT_REPLY_TOKENS,
    behaviour.toolTurn,
  );
  exchange.reportUsage(reply.usage);
  const answer: Answer = {
    model: call.model,
    reply,
    flex: call.flex,
    vertex: call.vertex,
    search: searchRequested(body),
    query: lastUserText(body),
  };
  if (call.stream) {
    const chunks = streamChunks(answer).map((chunk) => JSON.stringify(chunk));
    if (exchange.query.get('alt') === 'sse') return streamSse(context.state, exchange.res, chunks, behaviour);
    return sendJson(exchange.res, 200, `[${chunks.join(',\n')}]`);
  }
  if (behaviour.hang === 'body') {
    exchange.res.writeHead(200, { 'content-type': 'application/json' });
    exchange.res.flushHeaders();
    return;
  }
  const delay = (behaviour.firstTokenDelayMs ?? 0) + (behaviour.tokenDelayMs ?? 0) * reply.tokens.length;
  if (delay > 0) await sleep(delay, undefined, { signal: context.state.closing }).catch(() => {});
  if (!exchange.res.destroyed) sendJson(exchange.res, 200, responseBody(answer));
}

/** Paced SSE: chunk n carries the (n+1)-th piece; failures and drops count pieces from 0. */
async function streamSse(
  state: SimState,
  res: ServerResponse,
  chunks: string[],
  behaviour: Behaviour,
): Promise<void> {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const frame = (data: string) => `data: ${data}\r\n\r\n`;
  const delays = { first: behaviour.firstTokenDelayMs ?? 0, each: behaviour.tokenDelayMs ?? 0 };
  res.flushHeaders();
  if (behaviour.hang === 'body') return;
  let dropped = false;
  res.on('close', () => {
    if (!res.writableFinished && !dropped) state.stats.abortedStreams++;
  });
  for (const [index, chunk] of chunks.entries()) {
    const wait = index === 0 ? delays.first : delays.each;
    if (wait > 0) await sleep(wait, undefined, { signal: state.closing }).catch(() => {});
    if (res.destroyed || state.closing.aborted) return;
    if (index === behaviour.dropAfterTokens) {
      dropped = true;
      res.destroy();
      return;
    }
    if (index === behaviour.failAfterTokens) {
      const error = {
        code: 500,
        status: 'INTERNAL',
        message: 'Internal error on sim-node-3.internal.example.com.',
      };
      res.end(frame(JSON.stringify({ error })));
      return;
    }
    res.write(frame(chunk));
  }
  res.end();
}

export function unknownModel(model: string, vertexPath?: string): GoogleError {
  const message = vertexPath
    ? `Publisher Model \`${vertexPath}/publishers/google/models/${model}\` was not found or your project does not have access to it.`
    : `models/${model} is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.`;
  return { code: 404, status: 'NOT_FOUND', message };
}

export const BAD_KEY: GoogleError = {
  code: 400,
  status: 'INVALID_ARGUMENT',
  message: 'API key not valid. Please pass a valid API key.',
  details: [
    {
      '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
      reason: 'API_KEY_INVALID',
      domain: 'googleapis.com',
      metadata: { service: 'generativelanguage.googleapis.com' },
    },
  ],
};

export const geminiApi: SimApi = {
  name: 'gemini',
  matches: (method, path) => method === 'POST' && GEMINI_PATH.test(path),
  async handle(context, exchange) {
    const [, rawModel = '', method] = GEMINI_PATH.exec(exchange.path) ?? [];
    const header = exchange.req.headers['x-goog-api-key'];
    const key = typeof header === 'string' ? header : exchange.query.get('key');
    if (key !== context.credentials.geminiKey) return sendError(exchange.res, BAD_KEY);
    const model = decodeURIComponent(rawModel);
    if (!GEMINI_MODELS[model]) return sendError(exchange.res, unknownModel(model));
    const refused = checkFields(exchange.body, GEMINI_API_FIELDS) ?? checkGeminiTier(exchange.body as never);
    if (refused) return sendError(exchange.res, refused);
    const tier = (exchange.body as { serviceTier?: unknown }).serviceTier;
    const flex = typeof tier === 'string' && tier.toLowerCase() === 'flex';
    await generate(context, exchange, {
      model,
      stream: method === 'streamGenerateContent',
      vertex: false,
      flex,
    });
  },
};

export const vertexGeminiApi: SimApi = {
  name: 'vertex-gemini',
  matches: (method, path) => method === 'POST' && VERTEX_PATH.test(path),
  async handle(context, exchange) {
    if (!requireGoogleToken(context, exchange)) return;
    const [, project = '', location = '', rawModel = '', method] = VERTEX_PATH.exec(exchange.path) ?? [];
    const model = decodeURIComponent(rawModel);
    if (!GEMINI_MODELS[model])
      return sendError(exchange.res, unknownModel(model, `projects/${project}/locations/${location}`));
    const fieldsRefused = checkFields(exchange.body, VERTEX_FIELDS);
    if (fieldsRefused) return sendError(exchange.res, fieldsRefused);
    const header = exchange.req.headers['x-vertex-ai-llm-shared-request-type'];
    const tier = vertexTier(header, exchange.body as Readonly<Record<string, unknown>>);
    const tierRefused = checkVertexTier(tier, location);
    if (tierRefused) return sendError(exchange.res, tierRefused);
    const call = { model, stream: method === 'streamGenerateContent', vertex: true, flex: tier === 'flex' };
    await generate(context, exchange, call);
  },
};
