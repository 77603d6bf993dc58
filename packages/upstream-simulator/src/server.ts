/**
 * A local OpenAI-compatible upstream: deterministic chat completions (JSON or SSE streamed
 * token by token), tool calls, usage figures, `GET /v1/models`, and failures on request.
 * Plain node:http, so as a benchmark baseline it costs as little as possible.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { completionBody, type Envelope, errorBody, streamEvents } from './chunks.ts';
import { type Behaviour, behaviourFor } from './faults.ts';
import { buildReply, type SimRequest } from './reply.ts';

export interface SimulatorOptions {
  readonly host?: string;
  /** 0 (default) picks a free port. */
  readonly port?: number;
  /** Applied to every request unless the request says otherwise. */
  readonly behaviour?: Behaviour;
  /** Ids listed by `GET /v1/models` (chat accepts any model id). */
  readonly models?: readonly string[];
  /** How many received requests are kept for inspection. */
  readonly keepRequests?: number;
}

export interface ReceivedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly body: unknown;
}

export interface Simulator {
  /** `http://host:port`. */
  readonly url: string;
  /** `http://host:port/v1`: the base URL an OpenAI client or the gateway is given. */
  readonly baseUrl: string;
  /** The last requests received, oldest first. */
  readonly received: readonly ReceivedRequest[];
  /** TCP connections accepted so far (keep-alive reuse keeps this low). */
  readonly connections: number;
  /** Streams whose client went away before the stream ended. */
  readonly abortedStreams: number;
  close(): Promise<void>;
}

const DEFAULT_MODELS = ['sim-small', 'sim-large'];
const DEFAULT_REPLY_TOKENS = 16;

function sendJson(
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

async function readJson(req: IncomingMessage): Promise<unknown> {
  const parts: Buffer[] = [];
  for await (const part of req) parts.push(part as Buffer);
  try {
    return JSON.parse(Buffer.concat(parts).toString('utf8'));
  } catch {
    return undefined;
  }
}

function isChatRequest(body: unknown): body is SimRequest & Record<string, unknown> {
  const candidate = body as { model?: unknown; messages?: unknown } | undefined;
  return typeof candidate?.model === 'string' && Array.isArray(candidate.messages);
}

export async function startSimulator(options: SimulatorOptions = {}): Promise<Simulator> {
  const received: ReceivedRequest[] = [];
  const keep = options.keepRequests ?? 100;
  const closing = new AbortController();
  const stats = { connections: 0, abortedStreams: 0 };
  const models = options.models ?? DEFAULT_MODELS;

  async function chat(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const body = await readJson(req);
    received.push({ method: req.method ?? '', path: req.url ?? '', headers: req.headers, body });
    if (received.length > keep) received.shift();
    if (!isChatRequest(body)) {
      sendJson(res, 400, errorBody("'model' and 'messages' are required.", 'invalid_request_error', null));
      return;
    }
    const behaviour = behaviourFor(req.headers, body, options.behaviour ?? {});
    if (behaviour.hang === 'headers') return;
    if (behaviour.failStatus !== undefined) return fail(res, behaviour);
    const reply = buildReply(body, behaviour.replyTokens ?? DEFAULT_REPLY_TOKENS);
    const envelope: Envelope = {
      id: reply.id,
      model: body.model,
      created: Math.floor(Date.now() / 1000),
      serviceTier: body.service_tier === 'flex' ? 'flex' : 'default',
    };
    if (body.stream === true)
      return stream(res, streamEvents(reply, envelope, includesUsage(body)), behaviour);
    if (behaviour.hang === 'body') {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      return;
    }
    const delay = (behaviour.firstTokenDelayMs ?? 0) + (behaviour.tokenDelayMs ?? 0) * reply.tokens.length;
    if (delay > 0) await sleep(delay, undefined, { signal: closing.signal }).catch(() => {});
    if (!res.destroyed) sendJson(res, 200, completionBody(reply, envelope));
  }

  function fail(res: ServerResponse, behaviour: Behaviour): void {
    const status = behaviour.failStatus ?? 500;
    // Deliberately internal-looking, so tests can prove the gateway never passes it on.
    const message =
      behaviour.failMessage ??
      `Simulated failure ${status} on sim-node-3.internal.example.com (10.0.0.7), key sk-sim-0123456789abcdef`;
    const type =
      status === 429 ? 'rate_limit_error' : status >= 500 ? 'server_error' : 'invalid_request_error';
    const headers: Record<string, string> = behaviour.retryAfter
      ? { 'retry-after': behaviour.retryAfter }
      : {};
    sendJson(res, status, errorBody(message, type, null), headers);
  }

  async function stream(res: ServerResponse, events: string[], behaviour: Behaviour): Promise<void> {
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
      if (wait > 0) await sleep(wait, undefined, { signal: closing.signal }).catch(() => {});
      if (res.destroyed || closing.signal.aborted) return;
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

  const server = createServer((req, res) => {
    const path = (req.url ?? '/').split('?')[0] ?? '/';
    if (req.method === 'POST' && path.endsWith('/chat/completions')) {
      chat(req, res).catch(() => res.destroy());
    } else if (req.method === 'GET' && (path === '/v1/models' || path === '/models')) {
      const data = models.map((id) => ({ id, object: 'model', created: 1767225600, owned_by: 'simulator' }));
      sendJson(res, 200, JSON.stringify({ object: 'list', data }));
    } else {
      sendJson(
        res,
        404,
        errorBody(`Unknown route ${req.method} ${path}.`, 'invalid_request_error', 'not_found'),
      );
    }
  });
  server.keepAliveTimeout = 65_000;
  server.on('connection', (socket) => {
    stats.connections++;
    socket.setNoDelay(true);
  });
  await new Promise<void>((resolve) =>
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve),
  );
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(':') ? `[${address}]` : address;
  const url = `http://${host}:${port}`;
  return {
    url,
    baseUrl: `${url}/v1`,
    received,
    get connections() {
      return stats.connections;
    },
    get abortedStreams() {
      return stats.abortedStreams;
    },
    close: async () => {
      closing.abort();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

function includesUsage(body: Record<string, unknown>): boolean {
  const options = body.stream_options as { include_usage?: unknown } | null | undefined;
  return options?.include_usage === true;
}
