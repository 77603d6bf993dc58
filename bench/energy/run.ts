/**
 * Energy asset service benchmark (a script, not a test): requests/s and p99 latency of the
 * service's hot paths against a bare Fastify route measured in the same run, on the same
 * machine. Both servers run as child processes; autocannon drives them from this process.
 *
 *   node bench/energy/run.ts [--duration 5] [--connections 20] [--log-level info]
 *
 * The service runs with its production defaults (log level info, logs sent to /dev/null,
 * metrics on) on a fresh SQLite file, with a user, a building holding 50 operations and a
 * second building that receives the POSTs. When stock Rails 6.1 is installed (Debian's
 * ruby-rails, puma, ruby-activemodel-serializers-xml, ruby-sqlite3), the reference app in
 * rails-reference/ is seeded with the same rows, checked to answer the same bodies, and
 * measured on the four GET cases (`--skip-rails` leaves it out).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { migrateToLatest, openDatabase } from '@app/db';
import { createUser } from '@app/energy/auth/credentials.ts';
import { energyMigrations } from '@app/energy/db/migrations.ts';
import type { EnergyDatabase } from '@app/energy/db/schema.ts';
import autocannon from 'autocannon';
import { railsMissing, type ReferenceSeed, sameBodies, startRails } from './rails-reference.ts';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '20' },
    'log-level': { type: 'string', default: 'info' },
    /** Only the cases whose name contains this (the baseline always runs). */
    only: { type: 'string' },
    /** Write a V8 CPU profile of the service child into this folder (for `node --cpu-prof`). */
    'cpu-prof': { type: 'string' },
    'skip-rails': { type: 'boolean', default: false },
  },
});
const DURATION = Number(args.duration);
const CONNECTIONS = Number(args.connections);
const root = join(import.meta.dirname, '../..');

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

async function waitFor(url: string): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${url} did not come up`);
}

function start(script: string, env: Record<string, string>, nodeFlags: string[] = []): ChildProcess {
  const devNull = openSync('/dev/null', 'w');
  return spawn(process.execPath, [...nodeFlags, join(root, script)], {
    env: { ...process.env, ...env },
    stdio: ['ignore', devNull, 'inherit'],
  });
}

interface Seeded {
  readonly token: string;
  readonly operationId: number;
  readonly listBuilding: number;
  readonly postBuilding: number;
  /** The same rows, for the Rails reference. */
  readonly reference: ReferenceSeed;
}

async function seed(databaseUrl: string): Promise<Seeded> {
  const database = await openDatabase<EnergyDatabase>(databaseUrl);
  try {
    await migrateToLatest(database.db, energyMigrations);
    const { user_id, token } = await createUser(database.db, 'bench@example.com', 'bench-password');
    const stamp = new Date().toISOString();
    const building = (name: string) =>
      database.db
        .insertInto('buildings')
        .values({ user_id, name, created_at: stamp, updated_at: stamp })
        .returning('id')
        .executeTakeFirstOrThrow();
    const listBuilding = (await building('List')).id;
    const postBuilding = (await building('Posts')).id;
    const rows = Array.from({ length: 50 }, (_, index) => ({
      building_id: listBuilding,
      name: `Schedule ${index + 1}`,
      misc_electric_load: 1.5 + index / 10,
      total_occupants: 100 + index,
      setpoint_heating: 70,
      setpoint_cooling: 76,
      weekdays_open: 1,
      weekday_open_time: '0800',
      weekday_close_time: '1800',
      saturdays_open: 0,
      sundays_open: 0,
      created_at: stamp,
      updated_at: stamp,
    }));
    const inserted = await database.db.insertInto('operations').values(rows).returningAll().execute();
    const buildings = [
      { id: listBuilding, name: 'List' },
      { id: postBuilding, name: 'Posts' },
    ];
    const reference = { token, userId: user_id, buildings, operations: inserted };
    return { token, operationId: inserted[0]?.id ?? 1, listBuilding, postBuilding, reference };
  } finally {
    await database.close();
  }
}

interface Case {
  readonly name: string;
  readonly url: string;
  readonly pid: number;
  readonly method?: 'GET' | 'POST';
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

interface Measured {
  readonly name: string;
  readonly rps: number;
  readonly p99: number;
  /** Server CPU (user + system, all threads) per request: robust to other load on the machine. */
  readonly cpuMicros: number | undefined;
  /** Connection errors (resets); only the Rails reference may have them, and they are shown. */
  readonly errors: number;
}

/** utime + stime of a process in ms, from /proc (Linux; clock ticks are 10 ms there). */
function cpuMillis(pid: number): number | undefined {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? [];
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

async function measure(target: Case, tolerateResets = false): Promise<Measured> {
  const options = {
    url: target.url,
    method: target.method ?? 'GET',
    headers: target.headers ?? {},
    connections: CONNECTIONS,
    ...(target.body ? { body: target.body } : {}),
  };
  await autocannon({ ...options, duration: 1 }); // warm-up: JIT, statement caches
  const before = cpuMillis(target.pid);
  const result = await autocannon({ ...options, duration: DURATION });
  const after = cpuMillis(target.pid);
  const failed = (tolerateResets ? 0 : result.errors) + result.non2xx;
  if (failed > 0) throw new Error(`${target.name}: ${failed} failed requests`);
  const cpuMicros =
    before === undefined || after === undefined
      ? undefined
      : ((after - before) * 1000) / result.requests.total;
  return {
    name: target.name,
    rps: result.requests.average,
    p99: result.latency.p99,
    cpuMicros,
    errors: result.errors,
  };
}

function energyCases(base: string, pid: number, seeded: Seeded): Case[] {
  const auth = { authorization: `Bearer ${seeded.token}` };
  const api = `${base}/api/v1`;
  return [
    { name: 'GET /healthz (kit floor: no auth, no DB)', url: `${base}/healthz`, pid },
    { name: 'GET one operation, JSON', url: `${api}/operations/${seeded.operationId}`, headers: auth, pid },
    {
      name: 'GET one operation, XML',
      url: `${api}/operations/${seeded.operationId}.xml`,
      headers: auth,
      pid,
    },
    {
      name: 'GET 50-item list, JSON',
      url: `${api}/buildings/${seeded.listBuilding}/operations`,
      headers: auth,
      pid,
    },
    {
      name: 'GET 50-item list, XML',
      url: `${api}/buildings/${seeded.listBuilding}/operations.xml`,
      headers: auth,
      pid,
    },
    {
      name: 'POST create, JSON',
      url: `${api}/buildings/${seeded.postBuilding}/operations`,
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({
        name: 'Bench',
        weekdays_open: 't',
        weekday_open_time: 800,
        misc_electric_load: 1.5,
      }),
      pid,
    },
  ];
}

function printTable(rows: readonly Measured[], baseline: Measured): void {
  const percent = (value: number) => `${(value * 100).toFixed(0)}%`;
  console.log(
    `\n${CONNECTIONS} connections, ${DURATION} s per case, node ${process.version}, load ${loadavg()[0]?.toFixed(1)}\n`,
  );
  console.log('| Case | req/s | p99 (ms) | req/s vs bare | server CPU µs/req | CPU-bound ratio vs bare |');
  console.log('|---|---:|---:|---:|---:|---:|');
  for (const row of rows) {
    const cpu = row.cpuMicros === undefined ? '-' : row.cpuMicros.toFixed(0);
    const cpuRatio =
      row.cpuMicros === undefined || baseline.cpuMicros === undefined
        ? '-'
        : percent(baseline.cpuMicros / row.cpuMicros);
    console.log(
      `| ${row.name} | ${Math.round(row.rps)} | ${row.p99} | ${percent(row.rps / baseline.rps)} | ${cpu} | ${cpuRatio} |`,
    );
  }
}

/** The spec's targets against stock Rails: 30x for one record, 50x for the 50-item list. */
const RAILS_TARGETS: ReadonlyArray<readonly [string, number]> = [
  ['GET one operation', 30],
  ['GET 50-item list', 50],
];

async function compareWithRails(dir: string, seeded: Seeded, ours: string, rows: Measured[]): Promise<void> {
  const missing = railsMissing();
  if (missing) {
    console.log(`\nStock Rails reference skipped: ${missing}.`);
    return;
  }
  const port = await freePort();
  const rails = startRails(dir, port, seeded.reference);
  try {
    const base = `http://127.0.0.1:${port}`;
    await waitFor(`${base}/api/v1/operations/${seeded.operationId}?token=${seeded.token}`);
    const cases = energyCases(base, rails.pid ?? 0, seeded).filter(
      (target) =>
        RAILS_TARGETS.some(([prefix]) => target.name.startsWith(prefix)) &&
        (args.only === undefined || target.name.includes(args.only)),
    );
    for (const target of cases) {
      await sameBodies(target.url.replace(base, ours), target.url, target.headers ?? {});
    }
    console.log(
      '\nStock Rails 6.1 (puma, production, 1 process, 5 threads), same rows, bodies checked equal:\n',
    );
    console.log(
      '| Case | ours req/s | Rails req/s | req/s ratio | ours CPU µs/req | Rails CPU µs/req | CPU ratio | target | Rails resets |',
    );
    console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|');
    for (const target of cases) {
      // puma closes some keep-alive connections while its threads are busy: autocannon counts
      // those as errors; they are shown, the non-2xx answers still fail the run.
      const reference = await measure(target, true);
      const own = rows.find((row) => row.name === target.name);
      if (!own) continue;
      const target_ = RAILS_TARGETS.find(([prefix]) => target.name.startsWith(prefix))?.[1];
      const cpuRatio =
        own.cpuMicros && reference.cpuMicros ? `${(reference.cpuMicros / own.cpuMicros).toFixed(1)}x` : '-';
      console.log(
        `| ${target.name} | ${Math.round(own.rps)} | ${Math.round(reference.rps)} | ${(own.rps / reference.rps).toFixed(1)}x | ${own.cpuMicros?.toFixed(0) ?? '-'} | ${reference.cpuMicros?.toFixed(0) ?? '-'} | ${cpuRatio} | ${target_}x | ${reference.errors} |`,
      );
    }
  } finally {
    rails.kill('SIGTERM');
  }
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'energy-bench-'));
  const databaseUrl = `sqlite:${join(dir, 'energy.db')}`;
  const seeded = await seed(databaseUrl);
  const [energyPort, barePort] = [await freePort(), await freePort()];
  const energy = start(
    'packages/energy/src/main.ts',
    {
      ENERGY_PORT: String(energyPort),
      ENERGY_DATABASE_URL: databaseUrl,
      ENERGY_LOG_LEVEL: args['log-level'],
    },
    args['cpu-prof'] ? ['--cpu-prof', `--cpu-prof-dir=${args['cpu-prof']}`] : [],
  );
  const bare = start('bench/energy/bare-server.ts', { PORT: String(barePort) });
  try {
    const base = `http://127.0.0.1:${energyPort}`;
    const bareUrl = `http://127.0.0.1:${barePort}/bare`;
    await Promise.all([waitFor(`${base}/healthz`), waitFor(bareUrl)]);
    const bareCase = { name: 'bare Fastify route (baseline, first)', url: bareUrl, pid: bare.pid ?? 0 };
    const rows: Measured[] = [await measure(bareCase)];
    const cases = energyCases(base, energy.pid ?? 0, seeded).filter(
      (target) => args.only === undefined || target.name.includes(args.only),
    );
    for (const target of cases) rows.push(await measure(target));
    rows.push(await measure({ ...bareCase, name: 'bare Fastify route (again, last)' }));
    // The baseline is the mean of the first and last runs, so drift in the machine's load
    // during the run does not favour one end of the table.
    const first = rows[0] as Measured;
    const last = rows.at(-1) as Measured;
    const cpu =
      first.cpuMicros !== undefined && last.cpuMicros !== undefined
        ? (first.cpuMicros + last.cpuMicros) / 2
        : undefined;
    printTable(rows, {
      name: 'baseline',
      rps: (first.rps + last.rps) / 2,
      p99: 0,
      cpuMicros: cpu,
      errors: 0,
    });
    if (!args['skip-rails']) await compareWithRails(dir, seeded, base, rows);
  } finally {
    energy.kill('SIGTERM');
    bare.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
