/**
 * How the usage ledger stores meters (a script, not a test): the `meters` JSON column of
 * migration 0010 against a child table (one row per usage row and meter), on one engine, in one
 * run. Prints the cost of writing a group commit's batch (the real batch statement of
 * ledger/batch-statements.ts, plus the child rows' INSERT for the table), per usage row, and of a
 * project report's aggregate per day and meter (db/usage-meters.ts against a join), per query.
 *
 *   node bench/ledger/meters-storage.ts [--engine sqlite|postgres] [--rows 100000] [--batch 500]
 *                                       [--rounds 5] [--queries 20]
 *
 * PostgreSQL runs in a fresh schema of TEST_DATABASE_URL, dropped afterwards.
 */
import { parseArgs } from 'node:util';
import { engineOf, migrateToLatest } from '@app/db';
import { isolatedDatabase } from '@app/db/testing.ts';
import { type Kysely, sql } from 'kysely';
import { gatewayMigrations } from '../../packages/gateway/src/db/migrations.ts';
import type { GatewayDatabase } from '../../packages/gateway/src/db/schema.ts';
import { meterTotals } from '../../packages/gateway/src/db/usage-meters.ts';
import { ledgerStatements, type UsageRow } from '../../packages/gateway/src/ledger/batch-statements.ts';

const { values: args } = parseArgs({
  options: {
    engine: { type: 'string', default: 'sqlite' },
    rows: { type: 'string', default: '100000' },
    batch: { type: 'string', default: '500' },
    rounds: { type: 'string', default: '5' },
    queries: { type: 'string', default: '20' },
  },
});
const engine = args.engine === 'postgres' ? 'postgres' : 'sqlite';
const [ROWS, BATCH, ROUNDS, QUERIES] = [args.rows, args.batch, args.rounds, args.queries].map(Number) as [
  number,
  number,
  number,
  number,
];
const DAY_MS = 86_400_000;
const NOW = Date.now();

/** A typical settled row: four meters (input, cached reads, output, reasoning). */
const metersOf = (n: number) => ({
  input: 800 + (n % 50),
  cached_input: 1024,
  output: 90 + (n % 7),
  reasoning: 32,
});

function usageRow(n: number, withJson: boolean): UsageRow {
  const at = new Date(NOW - ((n * 7919) % (30 * DAY_MS))).toISOString();
  return [
    `t${n % 50}`,
    1,
    1,
    'developer',
    `m-${n % 3}`,
    1_900,
    122,
    withJson ? JSON.stringify(metersOf(n)) : '{}',
    900,
    900,
    'ok',
    null,
    at,
    at,
    null,
    `req-${n}`,
    1,
    'medium',
    'standard',
    1,
    120,
    40,
    'ok',
    null,
  ];
}

async function childInsert(db: Kysely<GatewayDatabase>, firstId: number, count: number): Promise<void> {
  const ids: number[] = [];
  const names: string[] = [];
  const quantities: number[] = [];
  for (let i = 0; i < count; i++)
    for (const [name, quantity] of Object.entries(metersOf(firstId + i))) {
      ids.push(firstId + i);
      names.push(name);
      quantities.push(quantity);
    }
  if (engineOf(db) === 'postgres') {
    await sql`insert into usage_meter (usage_id, meter, quantity)
      select * from unnest(${ids}::int4[], ${names}::text[], ${quantities}::int8[])`.execute(db);
    return;
  }
  // As the batch statement does: bounded multi-row VALUES (3 x 300 values per statement).
  for (let start = 0; start < ids.length; start += 300) {
    const values = ids
      .slice(start, start + 300)
      .map((id, i) => sql`(${id}, ${names[start + i]}, ${quantities[start + i]})`);
    await sql`insert into usage_meter (usage_id, meter, quantity) values ${sql.join(values)}`.execute(db);
  }
}

/** Writes `count` rows from id `first` as one commit would; ms. */
async function write(db: Kysely<GatewayDatabase>, first: number, count: number, child: boolean) {
  const statements = ledgerStatements(engine);
  const rows = Array.from({ length: count }, (_, i) => usageRow(first + i, !child));
  const started = performance.now();
  await db.transaction().execute(async (trx) => {
    for (const insert of statements.insertUsage(rows)) await trx.executeQuery(insert);
    if (child) await childInsert(trx, first, count);
  });
  return performance.now() - started;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

const isolated = await isolatedDatabase<GatewayDatabase>(engine);
const db = isolated.database.db;
try {
  await migrateToLatest(db, gatewayMigrations);
  await db.insertInto('users').values({ email: 'b@example.com', is_admin: 0, created_at: '' }).execute();
  await db.insertInto('projects').values({ slug: 'bench', ip_allow: '[]', created_at: '' }).execute();
  await sql`create table usage_meter (usage_id integer not null, meter text not null,
    quantity bigint not null)`.execute(db);
  await sql`create index usage_meter_usage on usage_meter (usage_id)`.execute(db);
  // Both layouts get the same rows: the JSON ones are ids 1..ROWS, the child ones ROWS+1..2*ROWS.
  const json: number[] = [];
  const child: number[] = [];
  let next = 1;
  for (let round = 0; next <= 2 * ROWS; round++) {
    const count = Math.min(BATCH, ROWS - (next - 1) / 2);
    json.push(await write(db, next, count, false));
    child.push(await write(db, next + count, count, true));
    next += 2 * count;
    if (round === 0) json.length = child.length = 0; // warm-up
  }
  await sql`analyze`.execute(db);
  const since = new Date(NOW - 30 * DAY_MS).toISOString();
  const scope = db
    .selectFrom('usage')
    .where('project_id', '=', 1)
    .where('created_at', '>=', since)
    .where('meters', '<>', sql<string>`'{}'`);
  const day = sql<string>`substr(created_at, 1, 10)`;
  const jsonQuery = () => meterTotals(db, scope.select([day.as('day'), 'meters']), ['day']);
  const childQuery = () =>
    sql`select substr(u.created_at, 1, 10) as day, m.meter, sum(m.quantity) as quantity
      from usage u join usage_meter m on m.usage_id = u.id
      where u.project_id = 1 and u.created_at >= ${since}
      group by substr(u.created_at, 1, 10), m.meter`.execute(db);
  const time = async (query: () => Promise<unknown>) => {
    const started = performance.now();
    for (let i = 0; i < QUERIES; i++) await query();
    return (performance.now() - started) / QUERIES;
  };
  const reads = { json: [] as number[], child: [] as number[] };
  await time(jsonQuery);
  await time(childQuery);
  for (let round = 0; round < ROUNDS; round++) {
    reads.json.push(await time(jsonQuery));
    reads.child.push(await time(childQuery));
  }
  const perRow = (ms: number[]) => (median(ms) * 1000) / BATCH;
  console.log(`${engine}: ${ROWS} usage rows each way, 4 meters a row, batches of ${BATCH}`);
  console.log(`| layout | write, us per row | report per day and meter, ms |`);
  console.log(`|---|---:|---:|`);
  console.log(`| meters JSON column | ${perRow(json).toFixed(1)} | ${median(reads.json).toFixed(1)} |`);
  console.log(`| child table | ${perRow(child).toFixed(1)} | ${median(reads.child).toFixed(1)} |`);
  console.log(
    `ratios child / JSON: write ${(perRow(child) / perRow(json)).toFixed(2)}x, report ${(median(reads.child) / median(reads.json)).toFixed(2)}x`,
  );
} finally {
  await isolated.drop();
}
