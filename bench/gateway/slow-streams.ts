/**
 * The slow-streams phase of the gateway benchmark: `streams` SSE streams held open at once
 * through one gateway instance (a child process of its own) from a simulator that sends one
 * token every `tokenDelayMs`. Measures, inside the gateway process, the RSS peak and the
 * event-loop delay (`monitorEventLoopDelay`): once while the streams are being opened (all
 * requests sent at once) and once while they are all open and streaming.
 */
import { Pool } from 'undici';
import type { Sample } from './gateway-process.ts';
import type { GatewayRole } from './servers.ts';
import { forkGateway, spawnServer } from './spawn.ts';

export interface SlowStreamsOptions {
  readonly streams: number;
  readonly tokenDelayMs: number;
  readonly replyTokens: number;
  readonly gateway: Omit<GatewayRole, 'simulatorUrl' | 'simulatorEnv'>;
  readonly cpuProfDir: string | undefined;
}

export interface SlowStreamsResult {
  /** After start-up, before any stream. */
  readonly idle: Sample;
  readonly opening: Sample;
  readonly open: Sample;
  /** Streams that ended with 200 and `[DONE]`, of `streams`. */
  readonly completed: number;
  readonly openingMs: number;
}

async function readStream(
  pool: Pool,
  path: string,
  headers: Record<string, string>,
  body: string,
  opened: () => void,
) {
  const response = await pool.request({ method: 'POST', path, headers, body });
  let first = true;
  let text = '';
  for await (const chunk of response.body) {
    if (first) opened();
    first = false;
    text = (text + String(chunk)).slice(-64);
  }
  return response.statusCode === 200 && text.includes('[DONE]');
}

export async function slowStreams(options: SlowStreamsOptions): Promise<SlowStreamsResult> {
  const { streams, tokenDelayMs, replyTokens } = options;
  const simulator = await spawnServer({ role: 'simulator', tokenDelayMs, replyTokens });
  const gateway = await forkGateway(
    {
      ...options.gateway,
      simulatorUrl: simulator.ready.origin ?? '',
      simulatorEnv: simulator.ready.env ?? {},
      upstreamConnections: streams,
    },
    options.cpuProfDir,
  );
  const pool = new Pool(gateway.ready.url, { connections: streams, pipelining: 1, keepAliveTimeout: 60_000 });
  const headers = {
    'content-type': 'application/json',
    authorization: `Bearer ${gateway.ready.token ?? ''}`,
  };
  const body = JSON.stringify({
    model: 'gpt-5.4',
    messages: [{ role: 'user', content: 'Tell a long story.' }],
    stream: true,
    stream_options: { include_usage: true },
  });
  const idle = await gateway.sample();
  let openCount = 0;
  let allOpen: () => void = () => {};
  const opened = new Promise<void>((resolve) => (allOpen = resolve));
  const onOpen = () => {
    if (++openCount === streams) allOpen();
  };
  gateway.reset();
  const started = performance.now();
  const runs = Array.from({ length: streams }, () =>
    readStream(pool, '/v1/chat/completions', headers, body, onOpen).catch(() => false),
  );
  await Promise.race([opened, Promise.all(runs)]);
  const openingMs = performance.now() - started;
  const opening = await gateway.sample();
  gateway.reset();
  const results = await Promise.all(runs);
  const open = await gateway.sample();
  await pool.close();
  await gateway.stop();
  await simulator.stop();
  return { idle, opening, open, completed: results.filter(Boolean).length, openingMs };
}
