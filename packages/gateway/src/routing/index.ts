import type { Redis } from '@app/db';
import type { FastifyBaseLogger, FastifyPluginAsync } from 'fastify';
import type { AccessControl, Ledger, Router } from '../contracts.ts';
import type { RoutingConfig } from './config.ts';

export interface RoutingDeps {
  readonly config: RoutingConfig;
  readonly redis: Redis | undefined;
  readonly ledger: Ledger;
  readonly access: AccessControl;
  /** Substituted for catalog upstreams whose baseUrl is `simulator`. */
  readonly simulatorUrl: string | undefined;
  readonly log: FastifyBaseLogger;
}

export interface Routing {
  readonly router: Router;
  /** GET /v1/models. */
  readonly routes: FastifyPluginAsync;
  close(): Promise<void>;
}

// PLACEHOLDER (request-path issue replaces this file's body).
export async function createRouting(_deps: RoutingDeps): Promise<Routing> {
  const refuse = (): never => {
    throw new Error('routing not built yet');
  };
  return {
    router: { resolve: refuse, select: async () => refuse(), report: async () => refuse() },
    routes: async () => {},
    close: async () => {},
  };
}
