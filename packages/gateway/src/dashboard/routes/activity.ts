/**
 * A project's activity log (docs/gateway/dashboard.md, "Activity log"): its page and its CSV
 * export. Project admins and gateway operators see every member's requests, a member only their
 * own; anyone else gets the "not found" of every project page.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ProjectView } from '../../access/directory.ts';
import { csvRecord } from '../../activity/csv.ts';
import { type ActivityFilter, ActivityQueryError, parseActivityQuery } from '../../activity/filter.ts';
import {
  type ActivityRow,
  type ActivityScope,
  activityMeters,
  activityPage,
  allActivity,
} from '../../activity/query.ts';
import { type DashboardContext, DashboardError, requireViewer, type Viewer } from '../context.ts';
import { type ActivityChoices, activityPageView } from '../views/activity.ts';
import { chromeOf, visibleProject } from './projects.ts';

/** Rows (attempts) per page of the activity log. */
export const ACTIVITY_PAGE_SIZE = 50;

const slugParams = {
  type: 'object',
  properties: { slug: { type: 'string', maxLength: 63 } },
  required: ['slug'],
};

function scopeOf(view: ProjectView, viewer: Viewer): ActivityScope {
  return { projectId: view.id, ...(view.canAdminister ? {} : { ownUserId: viewer.user.id }) };
}

function queryOf(request: FastifyRequest) {
  try {
    return parseActivityQuery(request.query);
  } catch (error) {
    if (error instanceof ActivityQueryError) throw new DashboardError(400, error.message);
    throw error;
  }
}

async function choicesFor(ctx: DashboardContext, scope: ActivityScope): Promise<ActivityChoices> {
  let tokens = ctx.db
    .selectFrom('access_tokens')
    .select(['jti', 'description'])
    .where('project_id', '=', scope.projectId);
  if (scope.ownUserId !== undefined) tokens = tokens.where('user_id', '=', scope.ownUserId);
  const users =
    scope.ownUserId === undefined
      ? ctx.db
          .selectFrom('memberships')
          .innerJoin('users', 'users.id', 'memberships.user_id')
          .select(['users.id', 'users.email'])
          .where('memberships.project_id', '=', scope.projectId)
          .orderBy('users.email')
          .execute()
      : Promise.resolve(undefined);
  const [tokenRows, userRows] = await Promise.all([tokens.orderBy('created_at', 'desc').execute(), users]);
  return {
    tokens: tokenRows,
    users: userRows?.map((row) => ({ id: Number(row.id), email: row.email })),
  };
}

const CSV_HEADER = [
  'time',
  'request_id',
  'attempt',
  'user',
  'token_id',
  'token_description',
  'provider',
  'model',
  'effort',
  'tier',
  'status',
  'outcome',
  'http_status',
  'input_tokens',
  'output_tokens',
  'cost_usd',
  'latency_ms',
  'first_token_ms',
  'reason',
];

/** One row; after the fixed columns, one per meter of the export (named as the meter). */
function csvLine(row: ActivityRow, meters: readonly string[]): string {
  return csvRecord([
    row.createdAt,
    row.requestId,
    row.attempt,
    row.userEmail ?? String(row.userId),
    row.tokenJti,
    row.tokenDescription,
    row.provider,
    row.model,
    row.effort,
    row.tier,
    row.status,
    row.outcome,
    row.httpStatus,
    row.promptTokens,
    row.completionTokens,
    row.costMicros / 1_000_000,
    row.latencyMs,
    row.firstTokenMs,
    row.reason,
    ...meters.map((meter) => row.meters[meter] ?? 0),
  ]);
}

async function* csvLines(ctx: DashboardContext, scope: ActivityScope, filter: ActivityFilter) {
  // The meters are known before the first row: every row has the same columns.
  const meters = await activityMeters(ctx.db, scope, filter);
  yield csvRecord([...CSV_HEADER, ...meters]);
  for await (const row of allActivity(ctx.db, scope, filter)) yield csvLine(row, meters);
}

async function sendCsv(ctx: DashboardContext, request: FastifyRequest, reply: FastifyReply) {
  const viewer = requireViewer(request);
  const view = await visibleProject(ctx, viewer, (request.params as { slug: string }).slug);
  const { before: _before, after: _after, ...filter } = queryOf(request);
  const day = new Date().toISOString().slice(0, 10);
  const stream = Readable.from(csvLines(ctx, scopeOf(view, viewer), filter));
  stream.on('error', (error) => request.log.error({ err: error }, 'activity CSV export failed'));
  return reply
    .type('text/csv; charset=utf-8')
    .header('content-disposition', `attachment; filename="activity-${view.slug}-${day}.csv"`)
    .header('cache-control', 'no-store')
    .send(stream);
}

export function activityRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  app.get(
    '/projects/:slug/activity',
    { schema: { hide: true, params: slugParams } },
    async (request, reply) => {
      const viewer = requireViewer(request);
      const view = await visibleProject(ctx, viewer, (request.params as { slug: string }).slug);
      const { before, after, ...filter } = queryOf(request);
      const scope = scopeOf(view, viewer);
      const [page, choices] = await Promise.all([
        activityPage(ctx.db, scope, filter, { before, after, limit: ACTIVITY_PAGE_SIZE }),
        choicesFor(ctx, scope),
      ]);
      const body = activityPageView(chromeOf(request, reply), { slug: view.slug, filter, page, choices });
      return reply.type('text/html; charset=utf-8').send(body);
    },
  );

  app.get('/projects/:slug/activity.csv', { schema: { hide: true, params: slugParams } }, (request, reply) =>
    sendCsv(ctx, request, reply),
  );
}
