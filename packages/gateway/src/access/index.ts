import type { Database, Redis } from '@app/db';
import type { FastifyBaseLogger, FastifyPluginAsync } from 'fastify';
import type { GatewayDatabase } from '../db/schema.ts';
import type { AccessConfig } from './config.ts';

export interface AccessDeps {
  readonly config: AccessConfig;
  readonly dataDir: string;
  readonly database: Database<GatewayDatabase>;
  readonly redis: Redis | undefined;
  readonly log: FastifyBaseLogger;
}

export interface Access {
  /** Routes of the access area (GET /v1/account). */
  readonly routes: FastifyPluginAsync;
  close(): Promise<void>;
}

/** Placeholder until the access layer lands: no routes, nothing to close. */
export async function createAccess(_deps: AccessDeps): Promise<Access> {
  return { routes: async () => {}, close: async () => {} };
}
