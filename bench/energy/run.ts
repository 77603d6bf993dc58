/**
 * Energy asset service benchmark (a script, not a test): requests/s and p99 latency of the
 * service's hot paths against a bare Fastify route measured in the same run, on the same
 * machine. Both servers run as child processes; autocannon drives them from this process.
 *
 *   node bench/energy/run.ts [--duration 5] [--connections 20] [--log-level info]
 *
 * The service runs with its production defaults (log level info, logs sent to /dev/null,
 * metrics on) on a fresh SQLite file, with a user, a building holding 50 operations and a
 * second building that receives the POSTs.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, openSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { migrateToLatest, openDatabase } from '@app/db';
import { createUser } from '@app/energy/auth/credentials.ts';
import { energyMigrations } from '@app/energy/db/migrations.ts';
import type { EnergyDatabase } from '@app/energy/db/schema.ts';
import autocannon from 'autocannon';

const { values: args } = parseArgs({
  options: {
    duration: { type: 'string', default: '5' },
    connections: { type: 'string', default: '20' },
    'log-level': { type: 'string', default: 'info' },
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

function start(script: string, env: Record<string, string>): ChildProcess {
  const devNull = openSync('/dev/null', 'w');
  return spawn(process.execPath, [join(root, script)], {
    env: { ...process.env, ...env },
    stdio: ['ignore', devNull, 'inherit'],
  });
}

async function seed(
  databaseUrl: string,
): Promise<{ token: string; operationId: number; listBuilding: number; postBuilding: number }> {
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
    const inserted = await database.db.insertInto('operations').values(rows).returning('id').execute();
    return { token, operationId: inserted[0]?.id ?? 1, listBuilding, postBuilding };
  } finally {
    await database.close();
  }
}

interface Case {
  readonly name: string;
  readonly url: string;
  readonly method?: 'GET' | 'POST';
  readonly headers?: Record<string, string>;
  readonly body?: string;
}

async function measure(target: Case): Promise<{ rps: number; p99: number; errors: number }> {
  const options = {
    url: target.url,
    method: target.method ?? 'GET',
    headers: target.headers ?? {},
    connections: CONNECTIONS,
    ...(target.body ? { body: target.body } : {}),
  };
  await autocannon({ ...options, duration: 1 }); // warm-up: JIT, statement caches
  const result = await autocannon({ ...options, duration: DURATION });
  return { rps: result.requests.average, p99: result.latency.p99, errors: result.errors + result.non2xx };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'energy-bench-'));
  const databaseUrl = `sqlite:${join(dir, 'energy.db')}`;
  const seeded = await seed(databaseUrl);
  const [energyPort, barePort] = [await freePort(), await freePort()];
  const energy = start('packages/energy/src/main.ts', {
    ENERGY_PORT: String(energyPort),
    ENERGY_DATABASE_URL: databaseUrl,
    ENERGY_LOG_LEVEL: args['log-level'],
  });
  const bare = start('bench/energy/bare-server.ts', { PORT: String(barePort) });
  try {
    const base = `http://127.0.0.1:${energyPort}`;
    await Promise.all([waitFor(`${base}/healthz`), waitFor(`http://127.0.0.1:${barePort}/bare`)]);
    const auth = { authorization: `Bearer ${seeded.token}` };
    const bareCase: Case = {
      name: 'bare Fastify route (baseline)',
      url: `http://127.0.0.1:${barePort}/bare`,
    };
    const cases: Case[] = [
      bareCase,
      { name: 'GET /healthz (kit floor: no auth, no DB)', url: `${base}/healthz` },
      {
        name: 'GET one operation, JSON',
        url: `${base}/api/v1/operations/${seeded.operationId}`,
        headers: auth,
      },
      {
        name: 'GET one operation, XML',
        url: `${base}/api/v1/operations/${seeded.operationId}.xml`,
        headers: auth,
      },
      {
        name: 'GET 50-item list, JSON',
        url: `${base}/api/v1/buildings/${seeded.listBuilding}/operations`,
        headers: auth,
      },
      {
        name: 'GET 50-item list, XML',
        url: `${base}/api/v1/buildings/${seeded.listBuilding}/operations.xml`,
        headers: auth,
      },
      {
        name: 'POST create, JSON',
        url: `${base}/api/v1/buildings/${seeded.postBuilding}/operations`,
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({
          name: 'Bench',
          weekdays_open: 't',
          weekday_open_time: 800,
          misc_electric_load: 1.5,
        }),
      },
    ];
    const rows: Array<[string, number, number]> = [];
    for (const target of cases) {
      const { rps, p99, errors } = await measure(target);
      if (errors > 0) throw new Error(`${target.name}: ${errors} failed requests`);
      rows.push([target.name, rps, p99]);
    }
    // The baseline is measured first and again last; the ratio uses the mean, so drift in the
    // machine's load during the run does not favour one end of the table.
    const again = await measure(bareCase);
    const baseline = ((rows[0]?.[1] ?? again.rps) + again.rps) / 2;
    rows.push(['bare Fastify route (again, last)', again.rps, again.p99]);
    console.log(`\n${CONNECTIONS} connections, ${DURATION} s per case, node ${process.version}\n`);
    console.log('| Case | req/s | p99 (ms) | vs bare route |');
    console.log('|---|---:|---:|---:|');
    for (const [name, rps, p99] of rows) {
      console.log(`| ${name} | ${Math.round(rps)} | ${p99} | ${((rps / baseline) * 100).toFixed(0)}% |`);
    }
  } finally {
    energy.kill('SIGTERM');
    bare.kill('SIGTERM');
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
