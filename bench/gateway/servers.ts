/**
 * Worker-thread entry of the benchmark: runs either the simulator or the gateway on its own
 * event loop (and core), so the load generator in the main thread measures them, not itself.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { parentPort, workerData } from 'node:worker_threads';
import { isPostgresUrl, openDatabase } from '@app/db';
import { seedAccount } from '@app/gateway/access/testing.ts';
import { buildApp } from '@app/gateway/app.ts';
import { loadGatewayConfig } from '@app/gateway/config.ts';
import type { GatewayDatabase } from '@app/gateway/db/schema.ts';
import { startSimulator } from '@app/upstream-simulator';
import { sql } from 'kysely';
import { startBareProxy } from './bare-proxy.ts';

export type ServerRole =
  | { role: 'simulator' }
  | { role: 'proxy'; simulatorUrl: string }
  | {
      role: 'gateway';
      /** The simulator's origin and the credentials it issued (the gateway signs with them). */
      simulatorUrl: string;
      simulatorEnv: Readonly<Record<string, string>>;
      logLevel: string;
      /** Directory of the temp SQLite file (default: the OS temp dir). */
      dbDir: string | undefined;
      /** A PostgreSQL URL instead of SQLite: the bench uses (and drops) a schema of its own. */
      databaseUrl: string | undefined;
    };
export type Ready = {
  url: string;
  token?: string;
  /** The simulator's: its origin and credential environment, for the gateway. */
  origin?: string;
  env?: Readonly<Record<string, string>>;
};

const port = parentPort;
if (!port) throw new Error('servers.ts runs as a worker thread');
const data = workerData as ServerRole;

/** Production log level, lines thrown away: the cost of logging is measured, the disk is not. */
const discard = new Writable({
  write(_chunk, _encoding, done) {
    done();
  },
});

async function startGateway(role: Extract<ServerRole, { role: 'gateway' }>) {
  const dataDir = mkdtempSync(join(role.dbDir ?? tmpdir(), 'gw-bench-'));
  const schema = `bench_${process.pid}_${Date.now()}`;
  const config = loadGatewayConfig(
    {},
    {
      overrides: {
        dataDir,
        databaseUrl: role.databaseUrl ?? `sqlite:${join(dataDir, 'gateway.db')}`,
        logLevel: role.logLevel,
        upstream: { simulator: { enabled: false } },
      },
    },
  );
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
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return {
    ready: { url, token },
    close: async () => {
      await app.close();
      if (postgres) await sql.raw(`drop schema if exists "${schema}" cascade`).execute(database.db);
      await database.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function start(role: ServerRole): Promise<{ ready: Ready; close(): Promise<void> }> {
  if (role.role === 'gateway') return startGateway(role);
  if (role.role === 'proxy') {
    const proxy = await startBareProxy(role.simulatorUrl);
    return { ready: { url: proxy.url }, close: () => proxy.close() };
  }
  const sim = await startSimulator({ behaviour: { tokenDelayMs: 0, firstTokenDelayMs: 0, replyTokens: 16 } });
  const ready = { url: sim.baseUrl, origin: sim.url, env: sim.credentialEnv };
  return { ready, close: () => sim.close() };
}

const server = await start(data);
port.postMessage(server.ready satisfies Ready);
port.once('message', async () => {
  await server.close();
  port.postMessage('closed');
  port.close();
});
