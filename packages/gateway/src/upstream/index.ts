import type { UpstreamHttpRequest } from '@app/provider-adapters';
import type { FastifyBaseLogger } from 'fastify';
import type { UpstreamTarget } from '../contracts.ts';
import type { UpstreamConfig } from './config.ts';
import { Transport, type UpstreamResponse } from './transport.ts';

export interface UpstreamDeps {
  readonly config: UpstreamConfig;
  readonly log: FastifyBaseLogger;
}

/** Transport to upstreams (undici pools, authentication, timeouts); adapters translate around it. */
export interface Upstream {
  readonly config: UpstreamConfig;
  /** Sends one request; throws TransportError (timeout, connection, aborted) when no response arrives. */
  send(target: UpstreamTarget, request: UpstreamHttpRequest, signal: AbortSignal): Promise<UpstreamResponse>;
  close(): Promise<void>;
}

export async function createUpstream(deps: UpstreamDeps): Promise<Upstream> {
  const transport = new Transport(deps.config, deps.log);
  return {
    config: deps.config,
    send: (target, request, signal) => transport.send(target, request, signal),
    close: () => transport.close(),
  };
}

export type { UpstreamResponse } from './transport.ts';
export { TransportError } from './transport-error.ts';
