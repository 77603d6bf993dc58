/**
 * HTTP to upstreams over undici pools: one keep-alive pool per origin (undici disables Nagle
 * on every socket it opens), connect/headers/body timeouts, the target's authentication, the
 * caller's abort signal, and retries only where provably safe (the request never left).
 */
import type { FastifyBaseLogger } from 'fastify';
import { type Dispatcher, Pool } from 'undici';
import type { UpstreamConfig } from './config.ts';
import { TransportError, toTransportError } from './transport-error.ts';

export type ResponseHeaders = Readonly<Record<string, string | string[] | undefined>>;

export interface UpstreamResponse {
  readonly status: number;
  readonly headers: ResponseHeaders;
  /** The body as it arrives; failures while reading are TransportErrors. */
  chunks(): AsyncIterable<Uint8Array>;
  /**
   * Hands each part of the body to `onChunk` from the socket's data event, with no promise per
   * part (a stream's per-token path: `chunks()` costs an async generator step and several
   * microtasks per part). Resolves at the end, or once `discard()` stopped the reading;
   * rejects with a TransportError when reading fails, or with what `onChunk` threw.
   */
  each(onChunk: (bytes: Uint8Array) => void): Promise<void>;
  /** Reads the whole body as text, at most `maxBytes` (the rest is dropped). */
  text(maxBytes?: number): Promise<string>;
  /** Stops reading and releases the connection (it is closed, not reused: its state is unknown). */
  discard(): void;
}

/** A signed request, ready to go: absolute URL, every header, the exact body that was signed. */
export interface OutgoingRequest {
  readonly method: 'POST' | 'GET';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  /** How long the upstream may take to send response headers, ms. */
  readonly timeoutMs: number;
}

export class Transport {
  readonly #config: UpstreamConfig;
  readonly #log: FastifyBaseLogger;
  readonly #pools = new Map<string, Pool>();

  constructor(config: UpstreamConfig, log: FastifyBaseLogger) {
    this.#config = config;
    this.#log = log;
  }

  /** Sends a request; throws TransportError when no HTTP response arrives. */
  async send(request: OutgoingRequest, signal: AbortSignal): Promise<UpstreamResponse> {
    const url = new URL(request.url);
    const pool = this.#pool(url.origin);
    const options = {
      method: request.method,
      path: url.pathname + url.search,
      headers: request.headers,
      body: request.body,
      signal,
      headersTimeout: request.timeoutMs,
      bodyTimeout: this.#config.bodyTimeoutMs,
    };
    for (let attempt = 0; ; attempt++) {
      try {
        const response = await pool.request(options);
        return wrap(response, signal);
      } catch (error) {
        const failure = toTransportError(error, signal);
        if (!failure.unsent || attempt >= this.#config.connectRetries) throw failure;
        this.#log.warn({ code: failure.code, attempt: attempt + 1 }, 'upstream connect failed, retrying');
      }
    }
  }

  /** Pools opened so far, by origin (tests check keep-alive reuse through undici's stats). */
  pool(baseUrl: string): Pool | undefined {
    return this.#pools.get(new URL(baseUrl).origin);
  }

  async close(): Promise<void> {
    await Promise.all([...this.#pools.values()].map((pool) => pool.close().catch(() => pool.destroy())));
    this.#pools.clear();
  }

  #pool(origin: string): Pool {
    let pool = this.#pools.get(origin);
    if (!pool) {
      pool = new Pool(origin, {
        connections: this.#config.connectionsPerOrigin,
        keepAliveTimeout: this.#config.keepAliveTimeoutMs,
        keepAliveMaxTimeout: this.#config.keepAliveTimeoutMs,
        connect: { timeout: this.#config.connectTimeoutMs },
      });
      this.#pools.set(origin, pool);
    }
    return pool;
  }
}

function wrap(response: Dispatcher.ResponseData, signal: AbortSignal): UpstreamResponse {
  const { body } = response;
  let discarded = false;
  async function* chunks(): AsyncGenerator<Uint8Array> {
    try {
      for await (const part of body) yield part as Uint8Array;
    } catch (error) {
      throw toTransportError(error, signal);
    }
  }
  return {
    status: response.statusCode,
    headers: response.headers,
    chunks,
    each: (onChunk) => eachChunk(body, signal, onChunk, () => discarded),
    async text(maxBytes = Number.POSITIVE_INFINITY) {
      const parts: Uint8Array[] = [];
      let size = 0;
      for await (const part of chunks()) {
        parts.push(size + part.length > maxBytes ? part.subarray(0, maxBytes - size) : part);
        size += part.length;
        if (size >= maxBytes) {
          body.destroy();
          break;
        }
      }
      return Buffer.concat(parts).toString('utf8');
    },
    discard: () => {
      discarded = true;
      if (!body.destroyed) body.destroy();
    },
  };
}

function eachChunk(
  body: Dispatcher.ResponseData['body'],
  signal: AbortSignal,
  onChunk: (bytes: Uint8Array) => void,
  discarded: () => boolean,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (discarded() || body.readableEnded) return resolve();
    if (body.errored) return reject(toTransportError(body.errored, signal));
    body.on('data', (part: Uint8Array) => {
      try {
        onChunk(part);
      } catch (error) {
        // The caller's own failure, not the transport's: passed on as it is.
        reject(error);
        body.destroy();
      }
    });
    // undici reports its own destroy() (discard) as an abort: the caller asked for it.
    body.once('error', (error) => (discarded() ? resolve() : reject(toTransportError(error, signal))));
    body.once('end', resolve);
    body.once('close', resolve);
  });
}

export { TransportError };
