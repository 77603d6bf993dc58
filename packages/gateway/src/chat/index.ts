import type { FastifyPluginAsync } from 'fastify';
import type { AccessControl, Ledger, Router } from '../contracts.ts';
import type { Upstream } from '../upstream/index.ts';

export interface ChatDeps {
  readonly access: AccessControl;
  readonly ledger: Ledger;
  readonly router: Router;
  readonly upstream: Upstream;
}

// PLACEHOLDER (request-path issue replaces this file's body): POST /v1/chat/completions.
export function chatRoutes(_deps: ChatDeps): FastifyPluginAsync {
  return async () => {};
}
