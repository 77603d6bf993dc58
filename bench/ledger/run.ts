/**
 * Ledger microbenchmark (a script, not a test): the budget ledger alone (reserve, then settle,
 * then the group commit) at a paced request rate, this tree's against another version's
 * (`--baseline DIR`, a copy of the repository as for bench/gateway) in one run, taking turns.
 * Prints the main thread's CPU time per request (`process.threadCpuUsage()`: node:sqlite runs on
 * it, PostgreSQL's work is in its own process) and ratios to the baseline.
 *
 *   node bench/ledger/run.ts --baseline DIR [--rates 2000,6000] [--flush-ms 5] [--seconds 3]
 *                            [--rounds 3] [--database-url postgres://...]
 *
 * `--flush-ms 5,50,200` measures each flush interval (this tree only past the first one): the
 * cost of a shorter interval, in the same run.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { type Database, openDatabase } from '@app/db';
import { sql } from 'kysely';
import pino from 'pino';
import type { seedAccount as SeedAccount } from '../../packages/gateway/src/access/testing.ts';
import { loadGatewayConfig } from '../../packages/gateway/src/config.ts';
import type { Principal } from '../../packages/gateway/src/contracts.ts';
import type { GatewayDatabase } from '../../packages/gateway/src/db/schema.ts';
import type { createLedger as CreateLedger } from '../../packages/gateway/src/ledger/ledger.ts';

const { values: args } = parseArgs({
  options: {
    baseline: { type: 'string' },
    rates: { type: 'string', default: '2000,6000' },
    'flush-ms': { type: 'string', default: '5' },
    seconds: { type: 'string', default: '3' },
    rounds: { type: 'string', default: '3' },
    'database-url': { type: 'string' },
  },
});
if (!args.baseline) throw new Error('--baseline DIR is required (a copy of the repository to compare with)');
const SECONDS = Number(args.seconds);
const RATES = args.rates.split(',').map(Number);
const FLUSH_MS = args['flush-ms'].split(',').map(Number);
const log = pino({ level: 'silent' });
const usage = {
  model: 'm-1',
  promptTokens: 10,
  completionTokens: 5,
  meters: { input: 8, cached_input: 2, output: 5 },
  costMicros: 900,
  status: 'ok',
} as const;

type Create = typeof CreateLedger;
type Seed = typeof SeedAccount;
const load = async (root: string): Promise<Create> =>
  (
    (await import(pathToFileURL(resolve(root, 'packages/gateway/src/ledger/ledger.ts')).href)) as {
      createLedger: Create;
    }
  ).createLedger;
/** Each tree's own seeding, so each database has the schema (migrations) its ledger writes. */
const loadSeed = async (root: string): Promise<Seed> =>
  (
    (await import(pathToFileURL(resolve(root, 'packages/gateway/src/access/testing.ts')).href)) as {
      seedAccount: Seed;
    }
  ).seedAccount;

interface Subject {
  readonly name: string;
  readonly create: Create;
  readonly flushMs: number;
  readonly database: Database<GatewayDatabase>;
  readonly principal: Principal;
}

const schemas: string[] = [];

async function open(
  dir: string,
  name: string,
  seedAccount: Seed,
): Promise<{ database: Database<GatewayDatabase>; principal: Principal }> {
  const url = args['database-url'] ?? `sqlite:${join(dir, `${name}.db`)}`;
  const schema = args['database-url'] ? `bench_ledger_${name.replace(/\W/g, '_')}_${process.pid}` : undefined;
  if (schema) schemas.push(schema);
  const database = await openDatabase<GatewayDatabase>(url, schema ? { schema } : {});
  const config = loadGatewayConfig({}, { overrides: { dataDir: dir } });
  const seeded = await seedAccount(database, {
    email: `${name.replace(/\W/g, '')}@example.com`,
    projectSlug: 'bench',
    allocations: { cloud_b: 1_000_000 },
    config,
  });
  return { database, principal: seeded.principal };
}

/** `rate` reserve + settle cycles per second for SECONDS; main-thread CPU us per request. */
async function measure(subject: Subject, rate: number): Promise<number> {
  const ledger = subject.create({ db: subject.database.db, log, options: { flushMs: subject.flushMs } });
  const { principal } = subject;
  const cycle = async () => {
    const reservation = await ledger.reserve({ principal, provider: 'cloud_b', estimateMicros: 20_000 });
    await ledger.settle(reservation, usage);
  };
  await Promise.all(Array.from({ length: 200 }, cycle)); // warm-up, and the lease
  const pending: Promise<void>[] = [];
  const total = Math.round(rate * SECONDS);
  const cpu = process.threadCpuUsage();
  const started = performance.now();
  let sent = 0;
  while (sent < total) {
    const due = Math.min(total, Math.floor(((performance.now() - started) / 1000) * rate));
    for (; sent < due; sent++) pending.push(cycle());
    await new Promise((done) => setTimeout(done, 1));
  }
  await Promise.all(pending);
  const used = process.threadCpuUsage(cpu);
  await ledger.close();
  return (used.user + used.system) / total;
}

/** No ledger at all (reserve and settle resolve at once): the cost of the load loop itself. */
const none = ((): Create => {
  const create = () => ({
    reserve: async () => ({ id: '', principal: {} as Principal, provider: 'cloud_b', amountMicros: 0 }),
    settle: async () => {},
    close: async () => {},
  });
  return create as unknown as Create;
})();

const median = (values: number[]) =>
  [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-ledger-'));
  const current = await load(resolve(import.meta.dirname, '../..'));
  const baseline = await load(resolve(args.baseline as string));
  const seedCurrent = await loadSeed(resolve(import.meta.dirname, '../..'));
  const seedBaseline = await loadSeed(resolve(args.baseline as string));
  const subjects: Subject[] = [];
  const floor: Subject = {
    name: 'no ledger (the loop)',
    create: none,
    flushMs: 0,
    ...(await open(dir, 'none', seedCurrent)),
  };
  for (const [i, flushMs] of FLUSH_MS.entries()) {
    if (i === 0)
      subjects.push({
        name: `base ${flushMs}ms`,
        create: baseline,
        flushMs,
        ...(await open(dir, `base-${flushMs}`, seedBaseline)),
      });
    subjects.push({
      name: `this ${flushMs}ms`,
      create: current,
      flushMs,
      ...(await open(dir, `this-${flushMs}`, seedCurrent)),
    });
  }
  console.log(
    `load average at start: ${loadavg()
      .map((v) => v.toFixed(1))
      .join(' ')}; ${args['database-url'] ? 'PostgreSQL' : 'SQLite file in ' + tmpdir()}`,
  );
  const results = new Map<string, number[]>();
  // Round 0 warms the JIT up for every subject and is not counted.
  for (let round = 0; round <= Number(args.rounds); round++)
    for (const rate of RATES)
      for (const subject of [...subjects, floor]) {
        const key = `${subject.name}\u0000${rate}`;
        const value = await measure(subject, round === 0 ? 500 : rate);
        if (round > 0) results.set(key, [...(results.get(key) ?? []), value]);
      }
  const base = subjects[0] as Subject;
  const cpu = (subject: Subject, rate: number) => median(results.get(`${subject.name}\u0000${rate}`) ?? []);
  console.log(
    `\nCPU us per request (main thread); "ledger" = minus the loop without a ledger; ratios of that to base`,
  );
  console.log(`\n| ledger | ${RATES.map((r) => `${r}/s total | ledger | vs base`).join(' | ')} |`);
  console.log(`|---|${RATES.map(() => '---:|---:|---:').join('|')}|`);
  for (const subject of [...subjects, floor]) {
    const cells = RATES.map((rate) => {
      const own = cpu(subject, rate) - cpu(floor, rate);
      const ratio = subject === floor ? '-' : `${(own / (cpu(base, rate) - cpu(floor, rate))).toFixed(2)}x`;
      return `${cpu(subject, rate).toFixed(1)} | ${own.toFixed(1)} | ${ratio}`;
    });
    console.log(`| ${subject.name} | ${cells.join(' | ')} |`);
  }
  console.log(
    `load average at end: ${loadavg()
      .map((v) => v.toFixed(1))
      .join(' ')}`,
  );
  // The PostgreSQL schemas this run created (the SQLite files go with `dir`).
  for (const schema of schemas) await sql`drop schema ${sql.id(schema)} cascade`.execute(floor.database.db);
  for (const subject of [...subjects, floor]) await subject.database.close();
  rmSync(dir, { recursive: true, force: true });
}

await main();
