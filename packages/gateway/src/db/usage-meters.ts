/**
 * Reading the usage rows' meters (migration 0010): totals per meter summed in SQL, taking each
 * row's JSON object apart with the engine's table function (SQLite json_each, PostgreSQL
 * jsonb_each_text through usage_meter_entries), so a report lists whatever meters the rows hold, known or not, without
 * loading the rows.
 */
import { engineOf } from '@app/db';
import { METERS, type Meters } from '@app/provider-adapters/model/meters.ts';
import { type Expression, type Kysely, sql } from 'kysely';
import type { GatewayDatabase, StoredMeters } from './schema.ts';

/** A row's meters as read (text on SQLite, the parsed jsonb on PostgreSQL); unreadable: none. */
export function storedMeters(value: StoredMeters | null | undefined): Meters {
  let parsed: unknown = value;
  if (typeof value === 'string') {
    try {
      parsed = JSON.parse(value);
    } catch {
      return {};
    }
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return {};
  const meters: Record<string, number> = {};
  for (const [name, quantity] of Object.entries(parsed))
    if (typeof quantity === 'number' && quantity > 0) meters[name] = quantity;
  return meters;
}

const KNOWN: readonly string[] = Object.values(METERS);

/** Meter names in a stable order: the known ones as METERS lists them, then others by name. */
export function meterOrder(names: Iterable<string>): string[] {
  const rank = (name: string) => {
    const index = KNOWN.indexOf(name);
    return index === -1 ? KNOWN.length : index;
  };
  return [...new Set(names)].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : a > b ? 1 : 0));
}

/** The meters present in any of `groups`, in meterOrder. */
export function metersPresent(groups: Iterable<{ readonly meters: Meters }>): string[] {
  const names = new Set<string>();
  for (const group of groups) for (const name of Object.keys(group.meters)) names.add(name);
  return meterOrder(names);
}

/** The sum of meters. */
export function addMeters(groups: Iterable<Meters>): Meters {
  const total: Record<string, number> = {};
  for (const meters of groups)
    for (const [name, quantity] of Object.entries(meters)) total[name] = (total[name] ?? 0) + quantity;
  return total;
}

/** How a group's key values are matched between two queries (numbers, text and null alike). */
export const groupKey = (values: readonly unknown[]): string =>
  JSON.stringify(values.map((value) => (typeof value === 'bigint' ? Number(value) : (value ?? null))));

interface MeterRow {
  readonly meter: string;
  readonly quantity: number | string | bigint;
  readonly [key: string]: unknown;
}

/**
 * Totals per meter of the groups of `rows`: a query of usage rows selecting the `keys` columns
 * and `meters`. Answers, per groupKey of the keys' values, the group's meters.
 */
export async function meterTotals(
  db: Kysely<GatewayDatabase>,
  rows: Expression<unknown>,
  keys: readonly string[],
): Promise<Map<string, Meters>> {
  // PostgreSQL: jsonb_each_text, with a row estimate that keeps the plan simple (migration 0010).
  const postgres = engineOf(db) === 'postgres';
  const each = postgres ? sql`usage_meter_entries(u.meters)` : sql`json_each(u.meters)`;
  const quantity = postgres ? sql`m.quantity` : sql`cast(m.value as bigint)`;
  const columns = keys.map((key) => sql.ref(`u.${key}`));
  const grouping = sql.join([...columns, sql.ref('m.key')]);
  const selected = columns.length > 0 ? sql`${sql.join(columns)}, ` : sql``;
  const result = await sql<MeterRow>`select ${selected}m.key as meter,
      sum(${quantity}) as quantity
    from (${rows}) as u, ${each} as m
    group by ${grouping}`.execute(db);
  const totals = new Map<string, Record<string, number>>();
  for (const row of result.rows) {
    const key = groupKey(keys.map((name) => row[name]));
    const meters = totals.get(key) ?? {};
    meters[row.meter] = Number(row.quantity);
    totals.set(key, meters);
  }
  return totals;
}

/**
 * SQLite, the usage rows read once for a report's figures and meters: `rows` (a select query
 * of the `keys` columns, `meters` and the `figures` columns) materialized, then summed by group
 * for the figures (a row whose `meter` is null) and by group and meter for the meters, ordered
 * by the `order` keys. PostgreSQL has no such query: there, every single pass measured slower
 * than its two aggregates (access/usage-report.ts).
 */
export function sqliteTotalsQuery(
  rows: Expression<unknown>,
  keys: readonly string[],
  figures: readonly string[],
  order: readonly string[],
) {
  const columns = keys.map((key) => sql.ref(`u.${key}`));
  const selected = columns.length > 0 ? sql`${sql.join(columns)}, ` : sql``;
  const byKeys = columns.length > 0 ? sql` group by ${sql.join(columns)}` : sql``;
  const ordered = order.length > 0 ? sql` order by ${sql.join(order.map((key) => sql.ref(key)))}` : sql``;
  const sums = sql.join(figures.map((name) => sql`sum(${sql.ref(`u.${name}`)}) as ${sql.ref(name)}`));
  const nulls = sql.join(figures.map((name) => sql`null as ${sql.ref(name)}`));
  return sql<TotalsRow>`with u as materialized ${rows}
    select ${selected}null as meter, null as quantity, ${sums} from u${byKeys}
    union all
    select ${selected}m.key as meter, sum(cast(m.value as bigint)) as quantity, ${nulls}
      from u, json_each(u.meters) as m
      group by ${sql.join([...columns, sql.ref('m.key')])}${ordered}`;
}

/** A row of sqliteTotalsQuery: a meter's total, or (`meter` null) the figures' sums. */
interface TotalsRow {
  readonly meter: string | null;
  readonly quantity: number | string | bigint | null;
  readonly [key: string]: unknown;
}

export interface GroupTotals {
  /** The group's key values as the query answered them. */
  readonly keys: Readonly<Record<string, unknown>>;
  /** The sums of the figure columns (0 where every row's was null). */
  readonly figures: Readonly<Record<string, number>>;
  readonly meters: Meters;
}

/** sqliteTotalsQuery's rows as groups, in the order they came. */
export function totalsOfGroups(
  rows: readonly TotalsRow[],
  keys: readonly string[],
  figures: readonly string[],
): GroupTotals[] {
  const groups = new Map<
    string,
    { keys: Record<string, unknown>; figures: Record<string, number>; meters: Record<string, number> }
  >();
  for (const row of rows) {
    const id = groupKey(keys.map((name) => row[name]));
    let group = groups.get(id);
    if (!group) {
      group = { keys: Object.fromEntries(keys.map((name) => [name, row[name]])), figures: {}, meters: {} };
      groups.set(id, group);
    }
    if (row.meter === null) for (const name of figures) group.figures[name] = Number(row[name] ?? 0);
    else group.meters[row.meter] = Number(row.quantity);
  }
  return [...groups.values()];
}
