/**
 * The admin API (/admin/v1): users, projects, memberships, allocations, rate limits, IP rules,
 * tokens, usage and the audit trail over HTTP, for operators' automation
 * (docs/gateway/admin-api.md). Every route calls the access area's functions, the ones
 * gatewayctl and the dashboard call, so no rule exists twice. Every request is authenticated
 * before its body is read: the IP allowlists, an admin key, the scope its method needs.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { AdminPrincipal } from '../access/admin-auth.ts';
import { auditRoutes } from './audit.ts';
import { budgetRoutes } from './budgets.ts';
import { type AdminApiDeps, type AdminContext, scopeOf } from './context.ts';
import { asApiError } from './errors.ts';
import { memberRoutes } from './members.ts';
import { tokenRoutes } from './tokens.ts';
import { projectRoutes, userRoutes } from './users-projects.ts';

export { ADMIN_API_PREFIX, type AdminApiDeps } from './context.ts';

/** The security scheme of /admin/v1, as /docs shows it under Authorize. */
export const ADMIN_KEY_AUTH = {
  type: 'http',
  scheme: 'bearer',
  description: [
    'An admin key (`gwadm_...`), sent as `Authorization: Bearer <admin key>`; never a personal access token.',
    'An operator creates one with `npx gatewayctl admin-keys create --description <what for> --scopes read,write`.',
    'Scope `read` allows the GET routes, `write` every other route.',
  ].join(' '),
};

/** Registered with the prefix /admin/v1. */
export function adminApiRoutes(deps: AdminApiDeps): FastifyPluginAsync {
  return async (plain) => {
    const app = plain.withTypeProvider<TypeBoxTypeProvider>();
    const principals = new WeakMap<FastifyRequest, AdminPrincipal>();
    // Before the body is parsed: a caller without a valid key learns nothing from validation.
    app.addHook('onRequest', async (request) => {
      principals.set(request, await deps.authenticate(request, scopeOf(request.method)));
    });
    // Refusals of the access functions become catalogued errors; the kit's handler renders them.
    app.setErrorHandler((error) => {
      throw asApiError(error);
    });
    const ctx: AdminContext = {
      ...deps,
      actorOf: (request) => {
        const principal = principals.get(request);
        if (!principal) throw new Error('admin request without a principal');
        return principal.actor;
      },
    };
    userRoutes(app, ctx);
    projectRoutes(app, ctx);
    memberRoutes(app, ctx);
    budgetRoutes(app, ctx);
    tokenRoutes(app, ctx);
    auditRoutes(app, ctx);
  };
}
