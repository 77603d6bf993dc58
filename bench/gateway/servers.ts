/**
 * Worker-thread entry of the benchmark: runs either the simulator or the gateway on its own
 * event loop (and core), so the load generator in the main thread measures them, not itself.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { SeedOptions } from '@app/gateway/access/testing.ts';
import { startSimulator } from '@app/upstream-simulator';
import { startBareProxy } from './bare-proxy.ts';
import { startKitProxy } from './kit-proxy.ts';
import { startGateway } from './gateway-server.ts';

export type ServerRole =
  /** `tokenDelayMs`: a slow simulator (the slow-streams phase); zero delay by default. */
  | { role: 'simulator'; tokenDelayMs?: number; replyTokens?: number }
  | { role: 'proxy'; simulatorUrl: string }
  /** The kit's server with one forwarding route (kit-proxy.ts): the gateway's stack, none of its logic. */
  | { role: 'kit'; simulatorUrl: string; logLevel: string }
  | GatewayRole;
export type GatewayRole = {
  role: 'gateway';
  /** The simulator's origin and the credentials it issued (the gateway signs with them). */
  simulatorUrl: string;
  simulatorEnv: Readonly<Record<string, string>>;
  logLevel: string;
  /** Directory of the temp SQLite file (default: the OS temp dir). */
  dbDir: string | undefined;
  /** A PostgreSQL URL instead of SQLite: the bench uses (and drops) a schema of its own. */
  databaseUrl: string | undefined;
  /** Upstream keep-alive connections per origin (the gateway's default, 256, when absent). */
  upstreamConnections?: number;
  /** The repository whose gateway runs (a `--baseline` copy); default: this one. */
  root?: string;
  /** More projects to seed: slug -> allocations in USD per provider; their tokens come in `Ready.tokens`. */
  projects?: Readonly<Record<string, SeedOptions['allocations']>>;
};
/** CPU time of a server's thread (or process), microseconds, as `process.threadCpuUsage()`. */
export type CpuTime = { readonly user: number; readonly system: number };
export type Ready = {
  url: string;
  token?: string;
  /** A token per project of `GatewayRole.projects`. */
  tokens?: Readonly<Record<string, string>>;
  /** The simulator's: its origin and credential environment, for the gateway. */
  origin?: string;
  env?: Readonly<Record<string, string>>;
  /** The worker answers 'cpu' (the servers.ts of a `--baseline` of an older version may not). */
  answersCpu?: boolean;
};

const port = parentPort;
if (!port) throw new Error('servers.ts runs as a worker thread');
const data = workerData as ServerRole;

async function start(role: ServerRole): Promise<{ ready: Ready; close(): Promise<void> }> {
  if (role.role === 'gateway') return startGateway(role);
  if (role.role === 'kit') {
    const kit = await startKitProxy(role.simulatorUrl, role.logLevel);
    return { ready: { url: kit.url }, close: () => kit.close() };
  }
  if (role.role === 'proxy') {
    const proxy = await startBareProxy(role.simulatorUrl);
    return { ready: { url: proxy.url }, close: () => proxy.close() };
  }
  const behaviour = {
    tokenDelayMs: role.tokenDelayMs ?? 0,
    firstTokenDelayMs: 0,
    replyTokens: role.replyTokens ?? 16,
  };
  const sim = await startSimulator({ behaviour });
  const ready = { url: sim.baseUrl, origin: sim.url, env: sim.credentialEnv };
  return { ready, close: () => sim.close() };
}

const server = await start(data);
port.postMessage({ ...server.ready, answersCpu: true } satisfies Ready);
// 'cpu': this thread's CPU time so far (per-request CPU of a throughput cell); anything else: close.
port.on('message', async (message: unknown) => {
  if (message === 'cpu') {
    port.postMessage(process.threadCpuUsage() satisfies CpuTime);
    return;
  }
  await server.close();
  port.postMessage('closed');
  port.close();
});
