/**
 * Gateway benchmark (a script, not a test): the same chat requests sent straight to the
 * simulator and through the gateway (auth, routing, metering on, production log level), in one
 * run on one machine. The simulator and the gateway each run in a worker thread; this thread
 * generates the load with undici pools.
 *
 *   npm run bench:gateway -- [--pairs 2000] [--seconds 2] [--model gpt-5.4] [--log-level info]
 *                            [--db-dir /dev/shm] [--database-url postgres://...]
 *
 * The embedded default database is a SQLite file in the OS temp dir; `--db-dir` moves it (a
 * tmpfs shows the cost of the disk's fsync), `--database-url` runs on PostgreSQL instead.
 *
 * Prints added latency at concurrency 1 (interleaved, gateway minus direct: p50, p99), the
 * streaming time-to-first-token overhead, and requests/s at concurrency 1, 16 and 64.
 */
import { cpus, loadavg, tmpdir } from 'node:os';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { type Interleaved, interleaved, percentile, type Target, target, throughput } from './measure.ts';
import type { Ready, ServerRole } from './servers.ts';

const { values: args } = parseArgs({
  options: {
    pairs: { type: 'string', default: '2000' },
    seconds: { type: 'string', default: '2' },
    model: { type: 'string', default: 'gpt-5.4' },
    'log-level': { type: 'string', default: 'info' },
    'db-dir': { type: 'string' },
    'database-url': { type: 'string' },
  },
});
const PAIRS = Number(args.pairs);
const SECONDS = Number(args.seconds);
const CONCURRENCY = [1, 16, 64] as const;
const TARGETS = { addedP50: 0.5, addedP99: 2, ttftP99: 1, ratioC64: 0.4 };

function spawnServer(role: ServerRole): Promise<{ ready: Ready; stop(): Promise<void> }> {
  const worker = new Worker(new URL('./servers.ts', import.meta.url), { workerData: role });
  return new Promise((resolve, reject) => {
    worker.once('error', reject);
    worker.once('message', (ready: Ready) =>
      resolve({
        ready,
        stop: () =>
          new Promise<void>((done) => {
            worker.once('message', () => void worker.terminate().then(() => done()));
            worker.postMessage('close');
          }),
      }),
    );
  });
}

const ms = (value: number) => value.toFixed(3).padStart(8);
const pad = (value: string, width: number) => value.padEnd(width);

function latencyRow(
  name: string,
  result: Interleaved,
  pick: 'first' | 'total',
): { row: string; added: number[] } {
  const direct = result.direct.map((t) => t[pick]).sort((a, b) => a - b);
  const gateway = result.gateway.map((t) => t[pick]).sort((a, b) => a - b);
  const added = [50, 99].map((p) => percentile(gateway, p) - percentile(direct, p));
  const cells = [50, 99].flatMap((p, i) => [
    percentile(direct, p),
    percentile(gateway, p),
    added[i] ?? Number.NaN,
  ]);
  return { row: `| ${pad(name, 26)} | ${cells.map(ms).join(' | ')} |`, added };
}

async function main(): Promise<void> {
  const simulator = await spawnServer({ role: 'simulator' });
  const gateway = await spawnServer({
    role: 'gateway',
    simulatorUrl: simulator.ready.url,
    logLevel: args['log-level'],
    dbDir: args['db-dir'],
    databaseUrl: args['database-url'],
  });
  const token = gateway.ready.token ?? '';
  const messages = [
    { role: 'user', content: 'Summarise the benefits of connection pooling in two sentences.' },
  ];
  const bodies = {
    json: (model: string) => ({ model, messages }),
    stream: (model: string) => ({ model, messages, stream: true, stream_options: { include_usage: true } }),
  };
  const make = (mode: 'json' | 'stream', connections: number) => ({
    direct: target(simulator.ready.url, {}, bodies[mode]('gpt-5.4-2026-03-05'), connections),
    gateway: target(
      `${gateway.ready.url}/v1`,
      { authorization: `Bearer ${token}` },
      bodies[mode](args.model),
      connections,
    ),
  });

  const lines: string[] = [];
  const out = (line = '') => {
    lines.push(line);
    console.log(line);
  };
  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  out(`Gateway benchmark, ${new Date().toISOString()}: ${cpus().length} x ${cpu}, Node ${process.version}`);
  const db = args['database-url'] ? 'PostgreSQL' : `SQLite in ${args['db-dir'] ?? tmpdir()}`;
  out(`model "${args.model}" through the gateway; simulator with zero delay, 16-token replies;`);
  const load = loadavg().map((value) => value.toFixed(1));
  out(`log level ${args['log-level']}; database ${db}; load average at start ${load.join(' ')}`);
  out();

  const latency = { json: make('json', 1), stream: make('stream', 1) };
  for (const pair of Object.values(latency)) await interleaved(pair.direct, pair.gateway, 300); // warm-up
  const jsonRun = await interleaved(latency.json.direct, latency.json.gateway, PAIRS);
  const streamRun = await interleaved(latency.stream.direct, latency.stream.gateway, PAIRS);
  out(`Latency at concurrency 1, ms (${PAIRS} interleaved pairs each)`);
  out();
  out(
    '| request                    | direct p50 | gateway p50 | added p50 | direct p99 | gateway p99 | added p99 |',
  );
  out(
    '|----------------------------|-----------:|------------:|----------:|-----------:|------------:|----------:|',
  );
  const json = latencyRow('JSON', jsonRun, 'total');
  const ttft = latencyRow('stream, first token', streamRun, 'first');
  const streamTotal = latencyRow('stream, complete', streamRun, 'total');
  for (const row of [json, ttft, streamTotal]) out(row.row);
  out();

  out(`Throughput, requests/s (${SECONDS} s per cell)`);
  out();
  out('| request | target  |      c=1 |     c=16 |     c=64 |');
  out('|---------|---------|---------:|---------:|---------:|');
  const ratios: Record<string, number[]> = {};
  for (const mode of ['json', 'stream'] as const) {
    const pools = make(mode, 64);
    const rates: Record<'direct' | 'gateway', number[]> = { direct: [], gateway: [] };
    for (const c of CONCURRENCY) {
      for (const which of ['direct', 'gateway'] as const) {
        const t: Target = pools[which];
        await throughput(t, c, 0.3); // warm-up
        rates[which].push(await throughput(t, c, SECONDS));
      }
    }
    ratios[mode] = rates.gateway.map((rate, i) => rate / (rates.direct[i] ?? Number.NaN));
    const fmt = (values: number[]) => values.map((v) => v.toFixed(0).padStart(8)).join(' | ');
    out(`| ${pad(mode, 7)} | direct  | ${fmt(rates.direct)} |`);
    out(`| ${pad(mode, 7)} | gateway | ${fmt(rates.gateway)} |`);
    out(
      `| ${pad(mode, 7)} | ratio   | ${(ratios[mode] ?? []).map((r) => `${(r * 100).toFixed(0)}%`.padStart(8)).join(' | ')} |`,
    );
    await Promise.all([pools.direct.pool.close(), pools.gateway.pool.close()]);
  }
  out();
  const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
  out(
    `Targets: added p50 <= ${TARGETS.addedP50} ms: ${verdict((json.added[0] ?? 99) <= TARGETS.addedP50)}; ` +
      `added p99 <= ${TARGETS.addedP99} ms: ${verdict((json.added[1] ?? 99) <= TARGETS.addedP99)}; ` +
      `TTFT added p99 <= ${TARGETS.ttftP99} ms: ${verdict((ttft.added[1] ?? 99) <= TARGETS.ttftP99)}; ` +
      `c=64 >= ${TARGETS.ratioC64 * 100}% of direct: JSON ${verdict((ratios.json?.[2] ?? 0) >= TARGETS.ratioC64)}, ` +
      `stream ${verdict((ratios.stream?.[2] ?? 0) >= TARGETS.ratioC64)}`,
  );

  await Promise.all([latency.json.direct.pool.close(), latency.json.gateway.pool.close()]);
  await Promise.all([latency.stream.direct.pool.close(), latency.stream.gateway.pool.close()]);
  await gateway.stop();
  await simulator.stop();
}

await main();
