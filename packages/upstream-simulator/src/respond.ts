/** The simulator's answers to chat requests: JSON, paced SSE, and failures on request. */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { setTimeout as sleep } from 'node:timers/promises';
import { completionBody, type Envelope, errorBody, streamEvents } from './chunks.ts';
import { type Behaviour, behaviourFor } from './faults.ts';
import { buildReply, type SimRequest } from './reply.ts';
import type { SimExchange } from './apis/types.ts';
import type { ReceivedRequest, SimulatorOptions } from './server.ts';

export const DEFAULT_REPLY_TOKENS = 16;

/** What the request handlers share with the running simulator. */
export interface SimState {
  readonly options: SimulatorOptions;
  readonly received: ReceivedRequest[];
  readonly keep: number;
  /** Aborted on close: pending delays end at once. */
  readonly closing: AbortSignal;
  readonly stats: { connections: number; abortedStreams: number };
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: string,
  headers: Record<string, string> = {},
): void {
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(body),
    ...headers,
  });
  res.end(body);
}

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  return Buffer.concat(parts);
}

export function parseJsonBody(raw: Buffer): unknown {
  try {
    return JSON.parse(raw.toString('utf8'));
  } catch {
    return undefined;
  }
}

/** Keeps the request for inspection by tests (the newest `keep` of them). */
export function record(state: SimState, exchange: SimExchange): ReceivedRequest {
  const { req, body } = exchange;
  const entry: ReceivedRequest = {
    method: req.method ?? '',
    path: req.url ?? '',
    headers: req.headers,
    body,
  };
  state.received.push(entry);
  if (state.received.length > state.keep) state.received.shift();
  return entry;
}

function isChatRequest(body: unknown): body is SimRequest & Record<string, unknown> {
  const candidate = body as { model?: unknown; messages?: unknown } | undefined;
  return typeof candidate?.model === 'string' && Array.isArray(candidate.messages);
}

/** An OpenAI Chat Completions answer (JSON or paced SSE) to a request already recorded. */
export async function chat(state: SimState, exchange: SimExchange): Promise<void> {
  const { options, closing } = state;
  const { req, res, body } = exchange;
  if (!isChatRequest(body)) {
    sendJson(res, 400, errorBody("'model' and 'messages' are required.", 'invalid_request_error', null));
    return;
  }
  const behaviour = behaviourFor(req.headers, body, options.behaviour ?? {});
  if (behaviour.hang === 'headers') return;
  if (behaviour.failStatus !== undefined) return fail(res, behaviour);
  const reply = buildReply(body, behaviour.replyTokens ?? DEFAULT_REPLY_TOKENS, behaviour.toolTurn);
  exchange.reportUsage(reply.usage);
  const envelope: Envelope = {
    id: reply.id,
    model: behaviour.servedModel ?? body.model,
    created: Math.floor(Date.now() / 1000),
    serviceTier: body.service_tier === 'flex' ? 'flex' : 'default',
  };
  if (body.stream === true)
    return stream(state, res, streamEvents(reply, envelope, includesUsage(body)), behaviour);
  if (behaviour.hang === 'body') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.flushHeaders();
    return;
  }
  const delay = (behaviour.firstTokenDelayMs ?? 0) + (behaviour.tokenDelayMs ?? 0) * reply.tokens.length;
  if (delay > 0) await sleep(delay, undefined, { signal: closing }).catch(() => {});
  if (!res.destroyed) sendJson(res, 200, completionBody(reply, envelope));
}

export function fail(res: ServerResponse, behaviour: Behaviour): void {
  const status = behaviour.failStatus ?? 500;
  // Deliberately internal-looking, so tests can prove the gateway never passes it on.
  const message =
    behaviour.failMessage ??
    `Simulated failure ${status} on sim-node-3.internal.example.com (10.0.0.7), key sk-sim-0123456789abcdef`;
  const type = status === 429 ? 'rate_limit_error' : status >= 500 ? 'server_error' : 'invalid_request_error';
  const headers: Record<string, string> = behaviour.retryAfter ? { 'retry-after': behaviour.retryAfter } : {};
  sendJson(res, status, errorBody(message, type, null), headers);
}

export async function stream(
  state: SimState,
  res: ServerResponse,
  events: string[],
  behaviour: Behaviour,
): Promise<void> {
  const { stats, closing } = state;
  res.writeHead(200, { 'content-type': 'text/event-stream; charset=utf-8', 'cache-control': 'no-cache' });
  const delays = { first: behaviour.firstTokenDelayMs ?? 0, each: behaviour.tokenDelayMs ?? 0 };
  const immediate =
    delays.first === 0 &&
    delays.each === 0 &&
    behaviour.hang === undefined &&
    behaviour.failAfterTokens === undefined &&
    behaviour.dropAfterTokens === undefined;
  if (immediate) {
    res.end(events.join(''));
    return;
  }
  res.flushHeaders();
  if (behaviour.hang === 'body') return;
  let dropped = false;
  res.on('close', () => {
    if (!res.writableFinished && !dropped) stats.abortedStreams++;
  });
  for (const [index, event] of events.entries()) {
    const wait = index === 0 ? delays.first : delays.each;
    if (wait > 0) await sleep(wait, undefined, { signal: closing }).catch(() => {});
    if (res.destroyed || closing.aborted) return;
    // Event 0 is the role chunk; event n (n >= 1) carries the n-th token.
    if (index - 1 === behaviour.dropAfterTokens) {
      dropped = true;
      res.destroy();
      return;
    }
    if (index - 1 === behaviour.failAfterTokens) {
      res.end(
        `data: ${errorBody('The simulated upstream failed mid-stream on sim-node-3.internal.example.com.', 'server_error', null)}\n\n`,
      );
      return;
    }
    res.write(event);
  }
  res.end();
}

function includesUsage(body: Record<string, unknown>): boolean {
  const options = body.stream_options as { include_usage?: unknown } | null | undefined;
  return options?.include_usage === true;
}
