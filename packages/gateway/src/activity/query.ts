/**
 * Reading the activity log: the usage ledger's rows of one project, newest first, filtered,
 * in keyset pages (never OFFSET: a deep page costs what the first one does). The order is
 * (created_at, id), the time each attempt started, so a day range is one index range; the
 * cursor is a row id, whose time is read back to continue after it.
 */
import { type ExpressionBuilder, type Kysely, sql } from 'kysely';
import type { Meters } from '@app/provider-adapters/model/meters.ts';
import type { GatewayDatabase } from '../db/schema.ts';
import { groupKey, meterOrder, meterTotals, storedMeters } from '../db/usage-meters.ts';
import { type ActivityFilter, dayAfter } from './filter.ts';

export interface ActivityRow {
  readonly id: number;
  readonly createdAt: string;
  readonly requestId: string | null;
  readonly attempt: number | null;
  readonly userId: number;
  readonly userEmail: string | null;
  readonly tokenJti: string;
  readonly tokenDescription: string | null;
  readonly provider: string;
  readonly model: string | null;
  readonly effort: string | null;
  readonly tier: string | null;
  /** The whole prompt and generation; `meters` splits them (and counts anything else charged). */
  readonly promptTokens: number;
  readonly completionTokens: number;
  readonly meters: Meters;
  readonly costMicros: number;
  readonly latencyMs: number | null;
  readonly firstTokenMs: number | null;
  /** The ledger's status: ok, error (a release costs 0) or aborted (the client left). */
  readonly status: string;
  readonly outcome: string | null;
  readonly httpStatus: number | null;
  readonly reason: string | null;
}

export interface ActivityScope {
  readonly projectId: number;
  /** Set for a member who is not a project admin: only their own requests. */
  readonly ownUserId?: number | undefined;
}

export interface ActivityPage {
  readonly rows: readonly ActivityRow[];
  /** Cursor of the next older page (`before`), when there is one. */
  readonly older?: number;
  /** Cursor of the next newer page (`after`), when there is one. */
  readonly newer?: number;
}

type Db = Kysely<GatewayDatabase>;
type Eb = ExpressionBuilder<GatewayDatabase, 'usage'>;

const nullableNumber = (value: number | bigint | null) => (value === null ? null : Number(value));

function selectRows(db: Db, scope: ActivityScope, filter: ActivityFilter) {
  let query = db
    .selectFrom('usage')
    .leftJoin('users', 'users.id', 'usage.user_id')
    .leftJoin('access_tokens', 'access_tokens.jti', 'usage.token_jti')
    .select(['usage.id', 'usage.created_at', 'usage.request_id', 'usage.attempt', 'usage.user_id'])
    .select(['users.email', 'usage.token_jti', 'access_tokens.description', 'usage.provider'])
    .select(['usage.model', 'usage.effort', 'usage.tier', 'usage.prompt_tokens', 'usage.completion_tokens'])
    .select('usage.meters')
    .select(['usage.cost_micros', 'usage.latency_ms', 'usage.first_token_ms', 'usage.status'])
    .select(['usage.outcome', 'usage.http_status', 'usage.reason'])
    .where('usage.project_id', '=', scope.projectId)
    .where('usage.status', '!=', 'reserved');
  const user = scope.ownUserId ?? filter.user;
  if (user !== undefined) query = query.where('usage.user_id', '=', user);
  if (filter.token !== undefined) query = query.where('usage.token_jti', '=', filter.token);
  if (filter.provider !== undefined) query = query.where('usage.provider', '=', filter.provider);
  if (filter.model !== undefined) query = query.where('usage.model', '=', filter.model);
  // No index leads by status (0011 left only a partial one of reserved rows), so a status filter
  // is read on the project's index, never by walking every project's rows of that status.
  if (filter.status !== undefined) query = query.where('usage.status', '=', filter.status);
  if (filter.from !== undefined)
    query = query.where('usage.created_at', '>=', `${filter.from}T00:00:00.000Z`);
  if (filter.to !== undefined) query = query.where('usage.created_at', '<', dayAfter(filter.to));
  return query;
}

type Selected = Awaited<ReturnType<ReturnType<typeof selectRows>['execute']>>[number];

function toRow(row: Selected): ActivityRow {
  return {
    id: Number(row.id),
    createdAt: row.created_at,
    requestId: row.request_id,
    attempt: nullableNumber(row.attempt),
    userId: Number(row.user_id),
    userEmail: row.email,
    tokenJti: row.token_jti,
    tokenDescription: row.description,
    provider: row.provider,
    model: row.model,
    effort: row.effort,
    tier: row.tier,
    promptTokens: Number(row.prompt_tokens),
    completionTokens: Number(row.completion_tokens),
    meters: storedMeters(row.meters),
    costMicros: Number(row.cost_micros),
    latencyMs: nullableNumber(row.latency_ms),
    firstTokenMs: nullableNumber(row.first_token_ms),
    status: row.status,
    outcome: row.outcome,
    httpStatus: nullableNumber(row.http_status),
    reason: row.reason,
  };
}

/** The row a cursor names, within the scope (another project's id is no cursor here). */
async function cursorOf(db: Db, scope: ActivityScope, id: number) {
  const row = await db
    .selectFrom('usage')
    .select(['created_at', 'id'])
    .where('id', '=', id)
    .where('project_id', '=', scope.projectId)
    .executeTakeFirst();
  return row ? { createdAt: row.created_at, id: Number(row.id) } : undefined;
}

/** Rows strictly older (`<`) or newer (`>`) than the cursor, in (created_at, id) order. */
const beyond = (direction: '<' | '>', cursor: { createdAt: string; id: number }) => (eb: Eb) =>
  eb.and([
    // The plain bound lets every planner start the index scan at the cursor.
    eb('usage.created_at', direction === '<' ? '<=' : '>=', cursor.createdAt),
    sql<boolean>`(usage.created_at, usage.id) ${sql.raw(direction)} (${cursor.createdAt}, ${cursor.id})`,
  ]);

export async function activityPage(
  db: Db,
  scope: ActivityScope,
  filter: ActivityFilter,
  page: { readonly before?: number | undefined; readonly after?: number | undefined; readonly limit: number },
): Promise<ActivityPage> {
  const cursorId = page.before ?? page.after;
  const cursor = cursorId === undefined ? undefined : await cursorOf(db, scope, cursorId);
  const newerPage = page.after !== undefined && cursor !== undefined;
  let query = selectRows(db, scope, filter);
  if (cursor) query = query.where(beyond(newerPage ? '>' : '<', cursor));
  const order = newerPage ? 'asc' : 'desc';
  const fetched = await query
    .orderBy('usage.created_at', order)
    .orderBy('usage.id', order)
    .limit(page.limit + 1)
    .execute();
  const more = fetched.length > page.limit;
  const rows = fetched.slice(0, page.limit).map(toRow);
  if (newerPage) rows.reverse();
  const [first, last] = [rows[0], rows.at(-1)];
  const hasOlder = newerPage ? rows.length > 0 : more;
  const hasNewer = newerPage ? more : cursor !== undefined && rows.length > 0;
  return {
    rows,
    ...(hasOlder && last ? { older: last.id } : {}),
    ...(hasNewer && first ? { newer: first.id } : {}),
  };
}

/** The meters any row of the filter holds (the CSV export's columns), in meterOrder. */
export async function activityMeters(
  db: Db,
  scope: ActivityScope,
  filter: ActivityFilter,
): Promise<string[]> {
  const totals = await meterTotals(db, selectRows(db, scope, filter), []);
  return meterOrder(Object.keys(totals.get(groupKey([])) ?? {}));
}

/** Every row of the filter, newest first, read in keyset batches (the CSV export). */
export async function* allActivity(
  db: Db,
  scope: ActivityScope,
  filter: ActivityFilter,
  batch = 1_000,
): AsyncGenerator<ActivityRow> {
  let before: number | undefined;
  for (;;) {
    const page = await activityPage(db, scope, filter, { before, limit: batch });
    yield* page.rows;
    if (page.older === undefined) return;
    before = page.older;
  }
}
