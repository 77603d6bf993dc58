/**
 * What a script polling GET /v1/account/usage costs the database (a script, not a test): the
 * report's query (one member's last 30 days by day and model) on a project of many members,
 * through the usage_project_user_time index against the same database without it (the project
 * index alone, as before migration 0008), taking turns in one run. Prints the median time per query
 * of each and the ratio.
 *
 *   node bench/ledger/account-usage.ts [--rows 200000] [--users 50] [--days 90] [--rounds 5]
 *                                      [--queries 200] [--engine sqlite|postgres]
 *
 * PostgreSQL runs in a fresh schema of TEST_DATABASE_URL, dropped afterwards.
 */
import { parseArgs } from 'node:util';
import { migrateToLatest } from '@app/db';
import { isolatedDatabase } from '@app/db/testing.ts';
import { sql } from 'kysely';
import { usageRows } from '../../packages/gateway/src/access/usage-report.ts';
import { gatewayMigrations } from '../../packages/gateway/src/db/migrations.ts';
import type { GatewayDatabase } from '../../packages/gateway/src/db/schema.ts';

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '200000' },
    users: { type: 'string', default: '50' },
    days: { type: 'string', default: '90' },
    rounds: { type: 'string', default: '5' },
    queries: { type: 'string', default: '200' },
    engine: { type: 'string', default: 'sqlite' },
  },
});
const ROWS = Number(args.rows);
const USERS = Number(args.users);
const DAYS = Number(args.days);
const engine = args.engine === 'postgres' ? 'postgres' : 'sqlite';
const DAY_MS = 86_400_000;

const isolated = await isolatedDatabase<GatewayDatabase>(engine);
const db = isolated.database.db;
try {
  await migrateToLatest(db, gatewayMigrations);
  const now = Date.now();
  const created = new Date(now).toISOString();
  await db.insertInto('projects').values({ slug: 'bench', ip_allow: '[]', created_at: created }).execute();
  for (let user = 1; user <= USERS; user++)
    await db
      .insertInto('users')
      .values({ email: `u${user}@example.com`, is_admin: 0, created_at: created })
      .execute();
  for (let start = 0; start < ROWS; start += 1000) {
    const batch = Array.from({ length: Math.min(1000, ROWS - start) }, (_, i) => {
      const n = start + i;
      return {
        token_jti: `t${n % USERS}`,
        user_id: (n % USERS) + 1,
        project_id: 1,
        provider: 'developer',
        model: `m-${n % 3}`,
        prompt_tokens: 100,
        completion_tokens: 20,
        meters: JSON.stringify({ input: 70, cached_input: 30, output: 16, reasoning: 4 }),
        reserved_micros: 900,
        cost_micros: 900,
        status: 'ok' as const,
        created_at: new Date(now - ((n * 7919) % (DAYS * DAY_MS))).toISOString(),
      };
    });
    await db.insertInto('usage').values(batch).execute();
  }
  if (engine === 'postgres') await sql`analyze usage`.execute(db);
  else await sql`analyze`.execute(db);

  const filter = {
    projectId: 1,
    userId: 7,
    since: new Date(now - 30 * DAY_MS).toISOString(),
    until: new Date(now).toISOString(),
  };
  const time = async (): Promise<number> => {
    const started = performance.now();
    for (let i = 0; i < Number(args.queries); i++) await usageRows(db, filter, ['day', 'model']);
    return (performance.now() - started) / Number(args.queries);
  };
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
  const withIndex: number[] = [];
  const without: number[] = [];
  const create = sql`create index usage_project_user_time on usage (project_id, user_id, created_at, id)`;
  await time(); // warm-up
  for (let round = 0; round < Number(args.rounds); round++) {
    withIndex.push(await time());
    await sql`drop index usage_project_user_time`.execute(db);
    if (engine === 'postgres') await sql`analyze usage`.execute(db);
    without.push(await time());
    await create.execute(db);
    if (engine === 'postgres') await sql`analyze usage`.execute(db);
  }
  const [a, b] = [median(withIndex), median(without)];
  console.log(`${engine}: ${ROWS} usage rows, ${USERS} members, ${DAYS} days; one member's last 30 days`);
  console.log(`  usage_project_user_time:  ${a.toFixed(3)} ms per query (median of ${args.rounds} rounds)`);
  console.log(`  project index only:       ${b.toFixed(3)} ms per query`);
  console.log(`  ratio (without / with):   ${(b / a).toFixed(1)}x`);
} finally {
  await isolated.drop();
}
