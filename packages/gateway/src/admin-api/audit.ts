/** The audit trail: every change made through gatewayctl, the dashboard and this API. */
import { Type } from 'typebox';
import { findProject } from '../access/admin.ts';
import { auditTrail } from '../access/audit.ts';
import { type AdminApp, type AdminContext, secured } from './context.ts';
import { adminErrors } from './errors.ts';
import { AuditPageSchema, auditEventJson } from './schemas.ts';

const AuditQuery = Type.Object(
  {
    project: Type.Optional(Type.String({ maxLength: 100, description: "Only this project's entries" })),
    before: Type.Optional(Type.Integer({ minimum: 1, description: 'Entries older than this id (paging)' })),
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 500, default: 100 })),
  },
  { additionalProperties: false },
);

export function auditRoutes(app: AdminApp, ctx: AdminContext): void {
  app.get(
    '/audit',
    {
      schema: {
        ...secured('GET'),
        summary: 'The audit trail, newest first',
        description:
          'Who changed what: users, projects, memberships, allocations, rate limits, tokens, admin keys. Changes of no project (a user, an admin key) have `project: null`. Page with `before`: `older_before` of the previous page.',
        querystring: AuditQuery,
        response: { 200: AuditPageSchema, ...adminErrors('unknown_project') },
      },
    },
    async (request) => {
      const { project, before, limit } = request.query;
      const projectId = project === undefined ? undefined : (await findProject(ctx.db, project)).id;
      const page = await auditTrail(ctx.db, projectId, {
        limit: limit ?? 100,
        ...(before === undefined ? {} : { before }),
      });
      return {
        object: 'list' as const,
        data: page.events.map(auditEventJson),
        older_before: page.olderBefore ?? null,
      };
    },
  );
}
