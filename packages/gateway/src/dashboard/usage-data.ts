/**
 * Usage as the dashboard shows it: the ledger's balances per bucket, and the usage ledger's rows
 * (table `usage`, one per upstream attempt) for requests, meters, the charts and the spend per
 * token.
 * Read-only: the ledger writes. Money stays in integer micro-dollars; PostgreSQL returns sums as
 * strings, hence Number().
 */
import { type Kysely, sql } from 'kysely';
import type { Meters } from '@app/provider-adapters/model/meters.ts';
import { byProviderOrder, type Ledger } from '../contracts.ts';
import type { GatewayDatabase } from '../db/schema.ts';
import { groupKey, meterTotals } from '../db/usage-meters.ts';

type Db = Kysely<GatewayDatabase>;

export interface BucketUsage {
  readonly provider: string;
  readonly allocatedMicros: number;
  /** Cost of finished requests. */
  readonly spentMicros: number;
  /** Held for requests still running (and budget other instances hold for theirs). */
  readonly reservedMicros: number;
  readonly remainingMicros: number;
  readonly requests: number;
  /** Totals per meter of the bucket's rows: whatever meters they hold. */
  readonly meters: Meters;
}

export interface DaySpend {
  /** UTC day, `YYYY-MM-DD`. */
  readonly day: string;
  readonly micros: number;
}

export interface TokenUsage {
  readonly jti: string;
  readonly description: string;
  readonly owner: string;
  readonly requests: number;
  readonly spentMicros: number;
}

/**
 * Requests of a group of ledger rows: a request counts once, at its first row (0010's
 * `new_request`), however many attempts and releases it wrote.
 */
const requests = sql<string | number>`coalesce(sum(new_request), 0)`;

/** Settled cost of a group of ledger rows (a row still `reserved` has no cost yet). */
const spent = sql<
  string | number
>`coalesce(sum(case when status <> 'reserved' then cost_micros else 0 end), 0)`;

/**
 * Per provider bucket with an allocation. Money comes from the ledger's balances, the figures
 * GET /v1/account shows and the gateway admits requests by (spent includes rows about to be
 * written, reserved the requests running); the request count from the ledger's rows.
 */
export async function bucketUsage(
  db: Db,
  ledger: Pick<Ledger, 'balances'>,
  projectId: number,
): Promise<BucketUsage[]> {
  const rows = db.selectFrom('usage').where('project_id', '=', projectId);
  const [balances, counts, meters] = await Promise.all([
    ledger.balances(projectId),
    rows
      .select(['provider', requests.as('n')])
      .groupBy('provider')
      .execute(),
    meterTotals(db, rows.select(['provider', 'meters']), ['provider']),
  ]);
  return Object.entries(balances)
    .flatMap(([provider, balance]) => (balance ? [{ provider, balance }] : []))
    .sort((a, b) => byProviderOrder(a.provider, b.provider))
    .map(({ provider, balance }) => ({
      provider,
      allocatedMicros: balance.allocatedMicros,
      spentMicros: balance.spentMicros,
      reservedMicros: balance.reservedMicros,
      remainingMicros: balance.remainingMicros,
      requests: Number(counts.find((row) => row.provider === provider)?.n ?? 0),
      meters: meters.get(groupKey([provider])) ?? {},
    }));
}

function utcDay(time: number): string {
  return new Date(time).toISOString().slice(0, 10);
}

/**
 * Settled spend per UTC day over the `days` days ending today, of a project or one of its
 * tokens; days without spend are zero, so the chart's axis is continuous.
 */
export async function dailySpend(
  db: Db,
  scope: { projectId: number; jti?: string },
  days: number,
  now = Date.now(),
): Promise<DaySpend[]> {
  const first = utcDay(now - (days - 1) * 86_400_000);
  // ISO-8601 text: the first ten characters are the UTC day on both engines.
  const day = sql<string>`substr(created_at, 1, 10)`;
  let query = db
    .selectFrom('usage')
    .select([day.as('day'), sql<string | number>`coalesce(sum(cost_micros), 0)`.as('micros')])
    .where('project_id', '=', scope.projectId)
    .where('status', '<>', 'reserved')
    .where('created_at', '>=', `${first}T00:00:00.000Z`);
  if (scope.jti !== undefined) query = query.where('token_jti', '=', scope.jti);
  const rows = await query.groupBy(day).execute();
  const byDay = new Map(rows.map((row) => [row.day, Number(row.micros)]));
  return Array.from({ length: days }, (_, index) => {
    const date = utcDay(now - (days - 1 - index) * 86_400_000);
    return { day: date, micros: byDay.get(date) ?? 0 };
  });
}

/** Spend per token of the project: every token for project admins, else the viewer's own. */
export async function tokenUsage(
  db: Db,
  projectId: number,
  only: { readonly userId?: number; readonly jti?: string } = {},
): Promise<TokenUsage[]> {
  const totals = db
    .selectFrom('usage')
    .select(['token_jti', spent.as('spent'), requests.as('n')])
    .where('project_id', '=', projectId)
    .groupBy('token_jti')
    .as('totals');
  let query = db
    .selectFrom('access_tokens as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .leftJoin(totals, 'totals.token_jti', 't.jti')
    .select(['t.jti', 't.description', 'u.email', 'totals.spent', 'totals.n'])
    .where('t.project_id', '=', projectId);
  if (only.userId !== undefined) query = query.where('t.user_id', '=', only.userId);
  if (only.jti !== undefined) query = query.where('t.jti', '=', only.jti);
  const rows = await query.orderBy('t.created_at', 'desc').execute();
  return rows.map((row) => ({
    jti: row.jti,
    description: row.description,
    owner: row.email,
    requests: Number(row.n ?? 0),
    spentMicros: Number(row.spent ?? 0),
  }));
}

/** One token of the project, when the viewer may see its usage (own token, or project admin). */
export async function visibleToken(
  db: Db,
  input: { projectId: number; jti: string; userId: number; canAdminister: boolean },
): Promise<TokenUsage | undefined> {
  const [token] = await tokenUsage(db, input.projectId, {
    jti: input.jti,
    ...(input.canAdminister ? {} : { userId: input.userId }),
  });
  return token;
}
