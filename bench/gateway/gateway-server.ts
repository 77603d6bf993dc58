/**
 * The gateway as the benchmark runs it (embedded defaults, a seeded account, production log
 * level with the lines thrown away), shared by the worker thread (servers.ts) and the child
 * process of the slow-streams phase (gateway-process.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Writable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { threadId } from 'node:worker_threads';
import type * as Db from '@app/db';
import type * as Seeding from '@app/gateway/access/testing.ts';
import type * as App from '@app/gateway/app.ts';
import type * as Config from '@app/gateway/config.ts';
import type { GatewayDatabase } from '@app/gateway/db/schema.ts';
import { sql } from 'kysely';
import type { GatewayRole } from './servers.ts';

const THIS_REPOSITORY = resolve(import.meta.dirname, '../..');

/** The gateway's modules of one repository: this one, or the `--baseline` copy a run compares with. */
async function modulesOf(root: string) {
  const load = <T>(path: string) => import(pathToFileURL(resolve(root, path)).href) as Promise<T>;
  const [db, seeding, app, config] = await Promise.all([
    load<typeof Db>('packages/db/src/index.ts'),
    load<typeof Seeding>('packages/gateway/src/access/testing.ts'),
    load<typeof App>('packages/gateway/src/app.ts'),
    load<typeof Config>('packages/gateway/src/config.ts'),
  ]);
  return { ...db, ...seeding, ...app, ...config };
}

/** Production log level, lines thrown away: the cost of logging is measured, the disk is not. */
const discard = new Writable({
  write(_chunk, _encoding, done) {
    done();
  },
});

export async function startGateway(role: GatewayRole) {
  const { isPostgresUrl, openDatabase, seedAccount, buildApp, loadGatewayConfig } = await modulesOf(
    role.root ?? THIS_REPOSITORY,
  );
  const dataDir = mkdtempSync(join(role.dbDir ?? tmpdir(), 'gw-bench-'));
  // Two gateways of one run (`--baseline`) are threads of one process: the thread id tells them apart.
  const schema = `bench_${process.pid}_${threadId}_${Date.now()}`;
  // BENCH_LEDGER_FLUSH_MS: the group commit's interval. Under Valgrind (bench:instructions) a
  // request takes ~50x longer: a longer interval keeps the rows per commit near full speed's.
  const flushMs = process.env['BENCH_LEDGER_FLUSH_MS'];
  const config = loadGatewayConfig(flushMs ? { GATEWAY_LEDGER_FLUSH_MS: flushMs } : {}, {
    overrides: {
      dataDir,
      databaseUrl: role.databaseUrl ?? `sqlite:${join(dataDir, 'gateway.db')}`,
      logLevel: role.logLevel,
      upstream: {
        simulator: { enabled: false },
        ...(role.upstreamConnections && { connectionsPerOrigin: role.upstreamConnections }),
      },
    },
  });
  const postgres = isPostgresUrl(config.databaseUrl);
  const database = await openDatabase<GatewayDatabase>(config.databaseUrl, postgres ? { schema } : {});
  const simulatorUrl = role.simulatorUrl;
  const app = await buildApp(config, { database, simulatorUrl, env: role.simulatorEnv, logStream: discard });
  const { token } = await seedAccount(database, {
    email: 'bench@example.com',
    projectSlug: 'bench',
    allocations: { developer: 1_000_000, cloud_c: 1_000_000 },
    config,
  });
  const tokens: Record<string, string> = {};
  for (const [slug, allocations] of Object.entries(role.projects ?? {}))
    ({ token: tokens[slug] } = await seedAccount(database, {
      email: `${slug}@example.com`,
      projectSlug: slug,
      allocations,
      config,
    }));
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    ready: { url, token, tokens },
    close: async () => {
      await app.close();
      if (postgres) await sql.raw(`drop schema if exists "${schema}" cascade`).execute(database.db);
      await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
