import type { FastifyBaseLogger } from 'fastify';
import type { UpstreamConfig } from './config.ts';

export interface UpstreamDeps {
  readonly config: UpstreamConfig;
  readonly log: FastifyBaseLogger;
}

/** Transport to upstreams (undici pools, signing, timeouts); adapters translate around it. */
export interface Upstream {
  close(): Promise<void>;
}

// PLACEHOLDER (request-path issue replaces this file's body).
export async function createUpstream(_deps: UpstreamDeps): Promise<Upstream> {
  return { close: async () => {} };
}
