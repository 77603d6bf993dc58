/**
 * 0010_usage_meters: usage rows keep what was charged as named meters (a JSON object, jsonb on
 * PostgreSQL) instead of one column per kind of token, so a new meter needs no migration. The
 * whole prompt and generation (`prompt_tokens`, `completion_tokens`) stay as columns: they are
 * what the reports' `input_tokens` and `output_tokens` are, the activity log's totals, and a
 * total a meter list cannot give without knowing which meters are tokens of which side.
 *
 * Existing rows get the meters `metersOf` derives from the same figures, in one statement:
 * `input` = prompt - cached read - cache write, `cached_input`, `cache_write_5m` (every write
 * was priced as a 5-minute one), `output` = completion - reasoning, `reasoning`; a meter of 0 is
 * left out. Web searches were never stored per row, so migrated rows have no `web_search_calls`
 * (their cost, which included them, is unchanged). `new_request` marks the row a report counts
 * as its request: not a later attempt, and not a release never sent after an earlier attempt.
 */
import { engineOf } from '@app/db';
import { type Kysely, type Migration, sql } from 'kysely';

/** The kind columns the meters replace. */
const KIND_COLUMNS = ['cached_tokens', 'cache_write_tokens', 'reasoning_tokens'] as const;

/** The meters of a row from its 0009 columns, as in metersOf (the smaller of two: min or least). */
function derivedMeters(least: 'min' | 'least') {
  const smaller = (a: string, b: string) => `${least}(${a}, ${b})`;
  const cached = smaller('cached_tokens', 'prompt_tokens');
  const written = smaller('cache_write_tokens', `prompt_tokens - ${cached}`);
  const reasoning = smaller('reasoning_tokens', 'completion_tokens');
  const meters: ReadonlyArray<readonly [string, string]> = [
    ['input', `prompt_tokens - ${cached} - ${written}`],
    ['cached_input', cached],
    ['cache_write_5m', written],
    ['output', `completion_tokens - ${reasoning}`],
    ['reasoning', reasoning],
  ];
  // Each present meter adds `,"name":n`; the leading comma of the first is cut off.
  const parts = meters.map(
    ([name, value]) => `coalesce(case when ${value} > 0 then ',"${name}":' || (${value}) end, '')`,
  );
  return `'{' || substr(${parts.join(' || ')}, 2) || '}'`;
}

async function up(db: Kysely<unknown>): Promise<void> {
  const postgres = engineOf(db) === 'postgres';
  await db.schema
    .alterTable('usage')
    .addColumn('meters', postgres ? 'jsonb' : 'text', (c) => c.notNull().defaultTo('{}'))
    .execute();
  await db.schema
    .alterTable('usage')
    .addColumn('new_request', 'integer', (c) => c.notNull().defaultTo(1))
    .execute();
  const json = derivedMeters(postgres ? 'least' : 'min');
  await sql`update usage set meters = ${sql.raw(postgres ? `(${json})::jsonb` : json)}`.execute(db);
  await sql`update usage set new_request = 0 where attempt > 1`.execute(db);
  // A release never sent (no attempt) after a sent attempt of its request was counted twice.
  await sql`update usage set new_request = 0
    where attempt is null and request_id is not null and exists (
      select 1 from usage sent
      where sent.project_id = usage.project_id and sent.request_id = usage.request_id
        and sent.attempt is not null)`.execute(db);
  for (const column of KIND_COLUMNS) await db.schema.alterTable('usage').dropColumn(column).execute();
  if (postgres) await sql.raw(METER_ENTRIES).execute(db);
}

/**
 * PostgreSQL: a row's meters as (key, quantity) rows, for the reports (db/usage-meters.ts). The
 * same as jsonb_each_text, declared to return a few rows: the planner takes any set-returning
 * function for 100 rows a call, and planned a report over 100,000 usage rows as one of ten
 * million (parallel workers, JIT compilation), several times slower than the work itself
 * (bench/ledger/meters-storage.ts). STRICT keeps it from being inlined, which would lose that.
 */
const METER_ENTRIES = `create function usage_meter_entries(meters jsonb, out key text, out quantity bigint)
  returns setof record language sql immutable strict parallel safe rows 8
  as $$ select key, value::bigint from jsonb_each_text(meters) $$`;

/** Back to 0009's columns; meters 0009 had no column for (web searches, any newer) are lost. */
async function down(db: Kysely<unknown>): Promise<void> {
  const postgres = engineOf(db) === 'postgres';
  for (const column of KIND_COLUMNS)
    await db.schema
      .alterTable('usage')
      .addColumn(column, 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
  const meter = (name: string) =>
    postgres
      ? `coalesce((meters->>'${name}')::integer, 0)`
      : `coalesce(json_extract(meters, '$.${name}'), 0)`;
  await sql`update usage set
    cached_tokens = ${sql.raw(meter('cached_input'))},
    cache_write_tokens = ${sql.raw(`${meter('cache_write_5m')} + ${meter('cache_write_1h')}`)},
    reasoning_tokens = ${sql.raw(meter('reasoning'))}`.execute(db);
  for (const column of ['meters', 'new_request'])
    await db.schema.alterTable('usage').dropColumn(column).execute();
  if (postgres) await sql`drop function usage_meter_entries(jsonb)`.execute(db);
}

export const usageMeters: Migration = { up, down };
