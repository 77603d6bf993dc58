/**
 * Activity log page benchmark (a script, not a test): fills the usage ledger with `--rows`
 * rows (1,000,000 by default; one INSERT ... SELECT, no round trip per row) on SQLite and, with
 * `--database-url`, PostgreSQL (a schema of its own, dropped afterwards), then times one page
 * (50 rows) of the dashboard's query (activityPage, the route's code) for each filter, a
 * combination and deep pages. The baseline in the same run is the same deep page read with
 * OFFSET, which keyset paging replaces: its ratio shows what the cursor saves.
 *
 *   node bench/activity-log/run.ts [--rows 1000000] [--repeat 7] [--database-url postgres://...]
 *                                  [--engines sqlite,postgres]
 *
 * Data: 50 users with 4 tokens each, 4 providers, 12 models, 2% errors and 1% aborted, spread
 * over 90 days, 95% of the rows in the measured project. SQLite gets no ANALYZE (the gateway
 * never runs one); PostgreSQL is analyzed once, as its autovacuum would.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { type Database, type Engine, migrateToLatest, openDatabase } from '@app/db';
import { sql } from 'kysely';
import type { ActivityFilter } from '../../packages/gateway/src/activity/filter.ts';
import { type ActivityScope, activityPage } from '../../packages/gateway/src/activity/query.ts';
import { gatewayMigrations } from '../../packages/gateway/src/db/migrations.ts';
import type { GatewayDatabase } from '../../packages/gateway/src/db/schema.ts';

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '1000000' },
    repeat: { type: 'string', default: '7' },
    'database-url': { type: 'string' },
    engines: { type: 'string', default: 'sqlite,postgres' },
  },
});
const ENGINES = args.engines.split(',');
const ROWS = Number(args.rows);
const REPEAT = Number(args.repeat);
const PAGE = 50;
const DAYS = 90;
const START = Date.parse('2026-08-01T00:00:00.000Z');
const STEP_MS = Math.floor((DAYS * 86_400_000) / ROWS);

/** Row i's columns as SQL over the series column `i` (the same text on both engines). */
const COLUMNS = {
  token_jti: `'tok-' || ((i % 200) + 1)`,
  user_id: `((i % 200) % 50) + 1`,
  project_id: `case when i % 20 = 0 then 2 else 1 end`,
  provider: `case i % 4 when 0 then 'developer' when 1 then 'cloud_a' when 2 then 'cloud_b' else 'cloud_c' end`,
  model: `'model-' || (i % 12)`,
  prompt_tokens: `100 + i % 900`,
  completion_tokens: `20 + i % 300`,
  reserved_micros: `5000`,
  cost_micros: `case when i % 100 < 2 then 0 else 1000 + i % 4000 end`,
  status: `case when i % 100 < 2 then 'error' when i % 100 = 2 then 'aborted' else 'ok' end`,
  outcome: `case when i % 100 < 2 then 'rate_limited' when i % 100 = 2 then 'client_left' else 'ok' end`,
  http_status: `case when i % 100 < 2 then 429 else null end`,
  request_id: `'req-' || i`,
  attempt: `1`,
  latency_ms: `200 + i % 5000`,
};

function createdAt(engine: Engine): string {
  return engine === 'postgres'
    ? `to_char(to_timestamp((${START}::bigint + i::bigint * ${STEP_MS}) / 1000.0) at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`
    : `strftime('%Y-%m-%dT%H:%M:%fZ', (${START} + i * ${STEP_MS}) / 1000.0, 'unixepoch')`;
}

async function fill(database: Database<GatewayDatabase>, engine: Engine): Promise<number> {
  const db = database.db;
  await migrateToLatest(db, gatewayMigrations);
  const now = new Date().toISOString();
  for (let u = 1; u <= 50; u++)
    await db
      .insertInto('users')
      .values({ email: `u${u}@example.com`, is_admin: 0, created_at: now })
      .execute();
  for (const slug of ['measured', 'other'])
    await db.insertInto('projects').values({ slug, ip_allow: '[]', created_at: now }).execute();
  const names = [...Object.keys(COLUMNS), 'created_at'].join(', ');
  const values = [...Object.values(COLUMNS), createdAt(engine)].join(', ');
  const series =
    engine === 'postgres'
      ? `select ${values} from generate_series(1, ${ROWS}) as s(i)`
      : `with recursive s(i) as (select 1 union all select i + 1 from s where i < ${ROWS}) select ${values} from s`;
  const started = performance.now();
  await sql.raw(`insert into usage (${names}) ${series}`).execute(db);
  if (engine === 'postgres') await sql`analyze usage`.execute(db);
  return performance.now() - started;
}

interface Case {
  readonly name: string;
  readonly scope?: Partial<ActivityScope>;
  readonly filter?: ActivityFilter;
  /** A deep page: the cursor is the row this far from the newest. */
  readonly deep?: number;
}

const CASES: Case[] = [
  { name: 'no filter (first page)' },
  { name: 'token', filter: { token: 'tok-17' } },
  { name: 'user (a member: own requests)', scope: { ownUserId: 17 } },
  { name: 'provider', filter: { provider: 'cloud_b' } },
  { name: 'model', filter: { model: 'model-5' } },
  { name: 'status error (2%)', filter: { status: 'error' } },
  { name: 'status aborted (1%)', filter: { status: 'aborted' } },
  { name: 'one day, 60 days back', filter: { from: '2026-08-31', to: '2026-08-31' } },
  {
    name: 'user + provider + ok + a week',
    scope: { ownUserId: 17 },
    filter: { provider: 'cloud_b', status: 'ok', from: '2026-09-01', to: '2026-09-07' },
  },
  { name: 'deep page (row 500,000)', deep: 500_000 },
  { name: 'deep page, user filter', scope: { ownUserId: 17 }, deep: 5_000 },
];

async function time(run: () => Promise<unknown>): Promise<number> {
  const times: number[] = [];
  await run();
  for (let r = 0; r < REPEAT; r++) {
    const started = performance.now();
    await run();
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)] ?? Number.NaN;
}

/** The id of the row `depth` rows from the newest, as the "older" links would reach it. */
async function cursorAt(database: Database<GatewayDatabase>, scope: ActivityScope, depth: number) {
  let query = database.db.selectFrom('usage').select('id').where('project_id', '=', scope.projectId);
  if (scope.ownUserId !== undefined) query = query.where('user_id', '=', scope.ownUserId);
  const row = await query
    .orderBy('created_at', 'desc')
    .orderBy('id', 'desc')
    .offset(Math.min(depth, Math.floor(ROWS / 2)))
    .limit(1)
    .executeTakeFirst();
  return row === undefined ? undefined : Number(row.id);
}

async function measure(engine: Engine, database: Database<GatewayDatabase>): Promise<void> {
  const fillMs = await fill(database, engine);
  console.log(`\n${engine}: ${ROWS.toLocaleString('en')} rows filled in ${(fillMs / 1000).toFixed(1)} s`);
  console.log(`${'case'.padEnd(34)} ${'ms/page'.padStart(8)} ${'rows'.padStart(5)}`);
  for (const c of CASES) {
    const scope: ActivityScope = { projectId: 1, ...c.scope };
    const before = c.deep === undefined ? undefined : await cursorAt(database, scope, c.deep);
    let rows = 0;
    const ms = await time(async () => {
      rows = (await activityPage(database.db, scope, c.filter ?? {}, { before, limit: PAGE })).rows.length;
    });
    console.log(`${c.name.padEnd(34)} ${ms.toFixed(2).padStart(8)} ${String(rows).padStart(5)}`);
  }
  const depth = Math.min(500_000, Math.floor(ROWS / 2));
  const cursor = await cursorAt(database, { projectId: 1 }, depth);
  const keyset = await time(() =>
    activityPage(database.db, { projectId: 1 }, {}, { before: cursor, limit: PAGE }),
  );
  const offset = await time(() =>
    database.db
      .selectFrom('usage')
      .selectAll()
      .where('project_id', '=', 1)
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .offset(depth)
      .limit(PAGE)
      .execute(),
  );
  console.log(
    `baseline, the page at row ${depth.toLocaleString('en')}: OFFSET ${offset.toFixed(2)} ms, ` +
      `keyset ${keyset.toFixed(2)} ms (keyset ${(offset / Math.max(keyset, 0.001)).toFixed(1)}x faster)`,
  );
}

const dir = process.env.BENCH_ACTIVITY_DIR ?? mkdtempSync(join(tmpdir(), 'bench-activity-'));
try {
  if (ENGINES.includes('sqlite')) {
    const sqlite = await openDatabase<GatewayDatabase>(`sqlite:${join(dir, 'activity.db')}`);
    await measure('sqlite', sqlite).finally(() => sqlite.close());
  }
  const url = args['database-url'];
  if (url && ENGINES.includes('postgres')) {
    const schema = `bench_activity_${process.pid}`;
    const pg = await openDatabase<GatewayDatabase>(url, { schema });
    try {
      await measure('postgres', pg);
    } finally {
      await sql`drop schema ${sql.id(schema)} cascade`.execute(pg.db);
      await pg.close();
    }
  } else console.log('\npostgres: skipped (no --database-url)');
} finally {
  if (!process.env.BENCH_ACTIVITY_DIR) rmSync(dir, { recursive: true, force: true });
}
