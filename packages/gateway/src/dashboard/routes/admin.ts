/** A project's IP allowlist (gateway admins) and its audit trail (project admins). */
import type { FastifyInstance } from 'fastify';
import { AccessAdminError, setProjectIpAllow, userActor } from '../../access/admin.ts';
import { auditTrail } from '../../access/audit.ts';
import { type DashboardContext, DashboardError, field, requireViewer } from '../context.ts';
import { auditPage } from '../views/admin.ts';
import { administeredProject, chromeOf, sendProjectPage, visibleProject } from './projects.ts';

/** Events per page of the audit trail. */
export const AUDIT_PAGE_SIZE = 25;

const slugParams = {
  type: 'object',
  properties: { slug: { type: 'string', maxLength: 63 } },
  required: ['slug'],
};

const auditQuery = {
  type: 'object',
  properties: { before: { type: 'integer', minimum: 1 } },
  additionalProperties: false,
};

export function adminRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  app.post(
    '/projects/:slug/ip-allow',
    { schema: { hide: true, params: slugParams } },
    async (request, reply) => {
      const viewer = requireViewer(request);
      const view = await visibleProject(ctx, viewer, (request.params as { slug: string }).slug);
      if (!viewer.user.isAdmin) throw new DashboardError(403, 'Only gateway admins change the IP allowlist.');
      const draft = field(request.body, 'ipAllow');
      const entries = draft.split(/[\s,]+/).filter((entry) => entry !== '');
      try {
        await setProjectIpAllow(ctx.db, { slug: view.slug, ipAllow: entries, actor: userActor(viewer.user) });
      } catch (error) {
        if (!(error instanceof AccessAdminError) || error.code !== 'invalid_cidr') throw error;
        // The page again, with what was typed and why it was refused; nothing was changed.
        return sendProjectPage(ctx, request, reply, {
          view,
          ipAllow: { problem: error.message, draft },
          status: 400,
        });
      }
      // Tokens of this instance follow now; other instances within the token-state cache time
      // (at most 1 s), at once with Redis.
      await ctx.tokens.announceRevocation(`ip allowlist ${view.slug}`);
      request.log.info({ project: view.slug, by: viewer.user.id }, 'dashboard IP allowlist set');
      return reply.redirect(`/dashboard/projects/${view.slug}`, 303);
    },
  );

  app.get(
    '/projects/:slug/audit',
    { schema: { hide: true, params: slugParams, querystring: auditQuery } },
    async (request, reply) => {
      const viewer = requireViewer(request);
      const view = await administeredProject(ctx, viewer, (request.params as { slug: string }).slug);
      const { before } = request.query as { before?: number };
      const trail = await auditTrail(ctx.db, view.id, {
        limit: AUDIT_PAGE_SIZE,
        ...(before === undefined ? {} : { before }),
      });
      const body = auditPage(chromeOf(request, reply), {
        slug: view.slug,
        trail,
        newest: before === undefined,
      });
      return reply.type('text/html; charset=utf-8').send(body);
    },
  );
}
