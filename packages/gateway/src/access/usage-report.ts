/**
 * Spend read from the usage ledger (one row per request that reserved budget), grouped for
 * gatewayctl usage --by and GET /v1/account/usage. On SQLite one query reads the rows once for
 * the figures and the meters; on PostgreSQL two aggregates read them (each single pass tried there
 * was slower: its planner sorted, or building each row's JSON cost more than the second read). A
 * caller polling its own spend is served by the usage_project_user_time index (project, user,
 * time; migration 0008), a project report by usage_project_time.
 */
import type { Meters } from '@app/provider-adapters/model/meters.ts';
import { engineOf } from '@app/db';
import { type CompiledQuery, type Kysely, sql } from 'kysely';
import type { GatewayDatabase } from '../db/schema.ts';
import {
  addMeters,
  type GroupTotals,
  groupKey,
  meterTotals,
  sqliteTotalsQuery,
  totalsOfGroups,
} from '../db/usage-meters.ts';
import type { Period, UsageGrouping } from './usage-period.ts';

export type { UsageGrouping } from './usage-period.ts';

export interface UsageFilter extends Period {
  readonly projectId: number;
  /** Only this user's rows (all their tokens). */
  readonly userId?: number;
  /** Only this token's rows. */
  readonly tokenJti?: string;
}

export interface UsageFigures {
  readonly requests: number;
  /** The whole prompt, cached reads included. */
  readonly inputTokens: number;
  /** The `cached_input` meter. */
  readonly cachedInputTokens: number;
  readonly outputTokens: number;
  /** Settled cost, USD micro-dollars (open reservations count 0 until they settle). */
  readonly costMicros: number;
  /** Totals per meter: every meter the group's rows hold, known today or not. */
  readonly meters: Meters;
}

/** One group; only the keys of the requested groupings are set. */
export interface UsageRow extends UsageFigures {
  readonly day?: string;
  readonly provider?: string;
  readonly model?: string | null;
  readonly tokenJti?: string;
  readonly userId?: number;
}

// created_at is an ISO instant in text on both engines: its first 10 characters are the UTC day.
const DAY = sql<string>`substr(created_at, 1, 10)`;

/** The rows of `filter` (its indexes: see the head of this file). */
function filtered(db: Kysely<GatewayDatabase>, filter: UsageFilter) {
  return db
    .selectFrom('usage')
    .$if(filter.userId !== undefined, (q) => q.where('user_id', '=', filter.userId ?? 0))
    .where('project_id', '=', filter.projectId)
    .$if(filter.tokenJti !== undefined, (q) => q.where('token_jti', '=', filter.tokenJti ?? ''))
    .$if(filter.since !== undefined, (q) => q.where('created_at', '>=', filter.since ?? ''))
    .$if(filter.until !== undefined, (q) => q.where('created_at', '<', filter.until ?? ''));
}

/** The key columns of each grouping, as the aggregate query names them. */
const KEYS: Readonly<Record<UsageGrouping, readonly string[]>> = {
  day: ['day'],
  model: ['provider', 'model'],
  user: ['user_id'],
  // A token belongs to one user: grouping by token keeps its user for the report to name.
  token: ['user_id', 'token_jti'],
};

const keysOf = (groups: readonly UsageGrouping[]) => [...new Set(groups.flatMap((group) => KEYS[group]))];

/** The figures' aggregate (PostgreSQL's first query). */
function figuresQuery(db: Kysely<GatewayDatabase>, filter: UsageFilter, groups: readonly UsageGrouping[]) {
  const by = new Set(groups);
  return filtered(db, filter)
    .select([
      // A request counts once, at its first row (0010's new_request): later attempts (failover,
      // retries) and releases never sent after one add their tokens and cost only.
      sql<number | string>`coalesce(sum(new_request), 0)`.as('new_request'),
      sql<number | string>`coalesce(sum(prompt_tokens), 0)`.as('prompt_tokens'),
      sql<number | string>`coalesce(sum(completion_tokens), 0)`.as('completion_tokens'),
      sql<number | string>`coalesce(sum(cost_micros), 0)`.as('cost_micros'),
    ])
    .$if(by.has('day'), (q) => q.select(DAY.as('day')).groupBy(DAY).orderBy(DAY))
    .$if(by.has('model'), (q) =>
      q.select(['provider', 'model']).groupBy(['provider', 'model']).orderBy('provider').orderBy('model'),
    )
    .$if(by.has('user') || by.has('token'), (q) => q.select('user_id').groupBy('user_id').orderBy('user_id'))
    .$if(by.has('token'), (q) => q.select('token_jti').groupBy('token_jti').orderBy('token_jti'));
}

/** The figures summed per group, by their columns. */
const FIGURES = ['new_request', 'prompt_tokens', 'completion_tokens', 'cost_micros'] as const;

/** The key columns in the order groups are listed: day, then model, user and token. */
const ORDER = ['day', 'provider', 'model', 'user_id', 'token_jti'];

/** The key columns and `meters` of the rows of `filter`, with the figures' columns if asked. */
function keyedRows(db: Kysely<GatewayDatabase>, filter: UsageFilter, keys: readonly string[]) {
  const columns = {
    day: DAY.as('day'),
    provider: sql.ref<string>('provider').as('provider'),
    model: sql.ref<string | null>('model').as('model'),
    user_id: sql.ref<number>('user_id').as('user_id'),
    token_jti: sql.ref<string>('token_jti').as('token_jti'),
  } as const;
  const selected = keys.map((key) => columns[key as keyof typeof columns]);
  return filtered(db, filter).select([...selected, 'meters']);
}

/** The report's query, exposed so a test can check its plan (on PostgreSQL, the figures' one). */
export function usageQuery(
  db: Kysely<GatewayDatabase>,
  filter: UsageFilter,
  groups: readonly UsageGrouping[],
): { compile(): CompiledQuery; execute(): Promise<GroupTotals[]> } {
  const keys = keysOf(groups);
  if (engineOf(db) === 'postgres') {
    const figures = figuresQuery(db, filter, groups);
    return { compile: () => figures.compile(), execute: () => bothQueries(db, filter, groups) };
  }
  const rows = keyedRows(db, filter, keys).select([...FIGURES]);
  const order = ORDER.filter((key) => keys.includes(key));
  const query = sqliteTotalsQuery(rows, keys, FIGURES, order);
  return {
    compile: () => query.compile(db),
    execute: async () => totalsOfGroups((await query.execute(db)).rows, keys, FIGURES),
  };
}

/** PostgreSQL: the figures' and the meters' aggregates, at once on two connections. */
async function bothQueries(
  db: Kysely<GatewayDatabase>,
  filter: UsageFilter,
  groups: readonly UsageGrouping[],
): Promise<GroupTotals[]> {
  const keys = keysOf(groups);
  const [rows, meters] = await Promise.all([
    figuresQuery(db, filter, groups).execute(),
    meterTotals(db, keyedRows(db, filter, keys), keys),
  ]);
  return rows.map((row: Readonly<Record<string, unknown>>) => ({
    keys: Object.fromEntries(keys.map((key) => [key, row[key]])),
    figures: Object.fromEntries(FIGURES.map((name) => [name, count(row[name])])),
    meters: meters.get(groupKey(keys.map((key) => row[key]))) ?? {},
  }));
}

const count = (value: unknown): number => Number(value ?? 0);

/** The groups of `filter`'s rows, ordered by their keys; without groupings, one total row. */
export async function usageRows(
  db: Kysely<GatewayDatabase>,
  filter: UsageFilter,
  groups: readonly UsageGrouping[],
): Promise<UsageRow[]> {
  const found = await usageQuery(db, filter, groups).execute();
  return found
    .filter((group) => groups.length > 0 || count(group.figures.new_request) > 0)
    .map(({ keys: row, figures: sums, meters }) => ({
      ...(row.day === undefined ? {} : { day: row.day as string }),
      ...(row.provider === undefined
        ? {}
        : { provider: row.provider as string, model: (row.model ?? null) as string | null }),
      ...(row.token_jti === undefined ? {} : { tokenJti: row.token_jti as string }),
      ...(row.user_id === undefined ? {} : { userId: count(row.user_id) }),
      requests: count(sums.new_request),
      ...figures(sums, meters),
    }));
}

function figures(sums: Readonly<Record<string, number>>, meters: Meters) {
  return {
    inputTokens: count(sums.prompt_tokens),
    cachedInputTokens: meters.cached_input ?? 0,
    outputTokens: count(sums.completion_tokens),
    costMicros: count(sums.cost_micros),
    meters,
  };
}

/** The sum of rows' figures. */
export function totalOf(rows: readonly UsageFigures[]): UsageFigures {
  const sum = (pick: (row: UsageFigures) => number) => rows.reduce((total, row) => total + pick(row), 0);
  return {
    requests: sum((r) => r.requests),
    inputTokens: sum((r) => r.inputTokens),
    cachedInputTokens: sum((r) => r.cachedInputTokens),
    outputTokens: sum((r) => r.outputTokens),
    costMicros: sum((r) => r.costMicros),
    meters: addMeters(rows.map((row) => row.meters)),
  };
}
