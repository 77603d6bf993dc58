/**
 * HTTP to upstreams over undici pools: one keep-alive pool per origin (undici disables Nagle
 * on every socket it opens), connect/headers/body timeouts, the target's authentication, the
 * caller's abort signal, and retries only where provably safe (the request never left).
 */
import type { UpstreamHttpRequest } from '@app/provider-adapters';
import type { FastifyBaseLogger } from 'fastify';
import { type Dispatcher, Pool } from 'undici';
import type { UpstreamTarget } from '../contracts.ts';
import type { UpstreamConfig } from './config.ts';
import { TransportError, toTransportError } from './transport-error.ts';

export type ResponseHeaders = Readonly<Record<string, string | string[] | undefined>>;

export interface UpstreamResponse {
  readonly status: number;
  readonly headers: ResponseHeaders;
  /** The body as it arrives; failures while reading are TransportErrors. */
  chunks(): AsyncIterable<Uint8Array>;
  /** Reads the whole body as text, at most `maxBytes` (the rest is dropped). */
  text(maxBytes?: number): Promise<string>;
  /** Stops reading and releases the connection (it is closed, not reused: its state is unknown). */
  discard(): void;
}

interface Endpoint {
  readonly pool: Pool;
  /** Path of the base URL (`/v1`), prefixed to the adapter's relative path. */
  readonly prefix: string;
}

export class Transport {
  readonly #config: UpstreamConfig;
  readonly #log: FastifyBaseLogger;
  readonly #pools = new Map<string, Pool>();
  readonly #endpoints = new Map<string, Endpoint>();

  constructor(config: UpstreamConfig, log: FastifyBaseLogger) {
    this.#config = config;
    this.#log = log;
  }

  /** Sends a request; throws TransportError when no HTTP response arrives. */
  async send(
    target: UpstreamTarget,
    request: UpstreamHttpRequest,
    signal: AbortSignal,
  ): Promise<UpstreamResponse> {
    const endpoint = this.#endpoint(target.baseUrl);
    const options = {
      method: request.method,
      path: endpoint.prefix + request.path,
      headers: { ...request.headers, ...authHeaders(target.auth) },
      body: request.body,
      signal,
      headersTimeout: target.timeoutMs,
      bodyTimeout: this.#config.bodyTimeoutMs,
    };
    for (let attempt = 0; ; attempt++) {
      try {
        const response = await endpoint.pool.request(options);
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
    this.#endpoints.clear();
  }

  #endpoint(baseUrl: string): Endpoint {
    const known = this.#endpoints.get(baseUrl);
    if (known) return known;
    const url = new URL(baseUrl);
    let pool = this.#pools.get(url.origin);
    if (!pool) {
      pool = new Pool(url.origin, {
        connections: this.#config.connectionsPerOrigin,
        keepAliveTimeout: this.#config.keepAliveTimeoutMs,
        keepAliveMaxTimeout: this.#config.keepAliveTimeoutMs,
        connect: { timeout: this.#config.connectTimeoutMs },
      });
      this.#pools.set(url.origin, pool);
    }
    const endpoint = { pool, prefix: url.pathname.replace(/\/+$/, '') };
    this.#endpoints.set(baseUrl, endpoint);
    return endpoint;
  }
}

function authHeaders(auth: UpstreamTarget['auth']): Record<string, string> {
  switch (auth.type) {
    case 'none':
      return {};
    case 'bearer':
      return { authorization: `Bearer ${auth.token}` };
    case 'header':
      return { [auth.name.toLowerCase()]: auth.value };
  }
}

function wrap(response: Dispatcher.ResponseData, signal: AbortSignal): UpstreamResponse {
  const { body } = response;
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
      if (!body.destroyed) body.destroy();
    },
  };
}

export { TransportError };
