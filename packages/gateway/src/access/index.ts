import type { Database, Redis } from '@app/db';
import type { FastifyBaseLogger, FastifyPluginAsync } from 'fastify';
import type { AccessControl, Ledger } from '../contracts.ts';
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
  readonly control: AccessControl;
  readonly ledger: Ledger;
  /** Routes of the access area (GET /v1/account). */
  readonly routes: FastifyPluginAsync;
  close(): Promise<void>;
}

// PLACEHOLDER (access-layer issue replaces this file's body): refuses every call.
export async function createAccess(_deps: AccessDeps): Promise<Access> {
  const refuse = async (): Promise<never> => {
    throw new Error('access layer not built yet');
  };
  return {
    control: { authenticate: refuse },
    ledger: { reserve: refuse, settle: refuse, release: refuse, balances: refuse },
    routes: async () => {},
    close: async () => {},
  };
}
