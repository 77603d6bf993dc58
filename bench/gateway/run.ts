/**
 * Gateway benchmark (a script, not a test): the same chat requests sent straight to the
 * simulator, through a bare pass-through proxy (the floor of any extra hop on this machine) and
 * through the gateway (auth, routing, metering on, production log level), in one run on one
 * machine. Simulator, proxy and gateway each run in a worker thread; this thread generates the
 * load with undici pools.
 *
 *   npm run bench:gateway -- [--pairs 2000] [--seconds 2] [--model gpt-5.4] [--log-level info]
 *                            [--db-dir /dev/shm] [--database-url postgres://...]
 *
 * The embedded default database is a SQLite file in the OS temp dir; `--db-dir` moves it (a
 * tmpfs shows the cost of the disk's fsync), `--database-url` runs on PostgreSQL instead.
 * Prints added latency at concurrency 1 (interleaved; p50 and p99 of gateway minus direct), the
 * streaming time-to-first-token overhead, and requests/s at concurrency 1, 16 and 64.
 */
import { cpus, loadavg, tmpdir } from 'node:os';
import { parseArgs } from 'node:util';
import { Worker } from 'node:worker_threads';
import { interleaved, percentile, type Target, type Timing, target, throughput } from './measure.ts';
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
const ROUNDS = Number(args.pairs);
const SECONDS = Number(args.seconds);
const CONCURRENCY = [1, 16, 64] as const;
const TARGETS = { addedP50: 0.5, addedP99: 2, ttftP99: 1, ratioC64: 0.4 };
const KINDS = ['direct', 'proxy', 'gateway'] as const;
type Kind = (typeof KINDS)[number];

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

const ms = (value: number) => value.toFixed(3).padStart(7);
const sorted = (timings: readonly Timing[], pick: keyof Timing) =>
  timings.map((t) => t[pick]).sort((a, b) => a - b);

/** One latency row: p50 and p99 of each target, and gateway minus direct. */
function latencyRow(
  name: string,
  runs: Timing[][],
  pick: keyof Timing,
): { row: string; added: [number, number] } {
  const [direct, proxy, gateway] = runs.map((run) => sorted(run, pick)) as [number[], number[], number[]];
  const added: [number, number] = [
    percentile(gateway, 50) - percentile(direct, 50),
    percentile(gateway, 99) - percentile(direct, 99),
  ];
  const cells = [50, 99].flatMap((p, i) => [
    percentile(direct, p),
    percentile(proxy, p),
    percentile(gateway, p),
    added[i as 0 | 1],
  ]);
  return { row: `| ${name.padEnd(19)} | ${cells.map(ms).join(' | ')} |`, added };
}

type Make = (mode: 'json' | 'stream', connections: number) => Record<Kind, Target>;

const closeAll = (targets: Record<Kind, Target>) =>
  Promise.all(KINDS.map((kind) => targets[kind].pool.close()));

/** Concurrency 1, interleaved; returns [added p50, added p99] of JSON and of the first streamed token. */
async function latencyPhase(make: Make): Promise<{ json: [number, number]; ttft: [number, number] }> {
  const latency = { json: make('json', 1), stream: make('stream', 1) };
  for (const targets of Object.values(latency)) await interleaved(Object.values(targets), 300); // warm-up
  const jsonRuns = await interleaved(
    KINDS.map((kind) => latency.json[kind]),
    ROUNDS,
  );
  const streamRuns = await interleaved(
    KINDS.map((kind) => latency.stream[kind]),
    ROUNDS,
  );
  await Promise.all([closeAll(latency.json), closeAll(latency.stream)]);
  console.log(`Latency at concurrency 1, ms (${ROUNDS} interleaved rounds); added = gateway - direct`);
  console.log();
  const columns = ['direct', 'proxy', 'gateway', 'added'];
  const titles = [50, 99].flatMap((p) => columns.map((column) => `${column} p${p}`.padStart(7)));
  console.log(`| ${'request'.padEnd(19)} | ${titles.join(' | ')} |`);
  console.log(`|${'-'.repeat(21)}|${titles.map((title) => `${'-'.repeat(title.length + 1)}:`).join('|')}|`);
  const json = latencyRow('JSON', jsonRuns, 'total');
  const ttft = latencyRow('stream, first token', streamRuns, 'first');
  const streamTotal = latencyRow('stream, complete', streamRuns, 'total');
  for (const row of [json, ttft, streamTotal]) console.log(row.row);
  console.log();
  return { json: json.added, ttft: ttft.added };
}

/** Requests/s of each target at each concurrency; returns gateway / direct per mode and concurrency. */
async function throughputPhase(make: Make): Promise<Record<'json' | 'stream', number[]>> {
  console.log(`Throughput, requests/s (${SECONDS} s per cell); ratio = gateway / direct`);
  console.log();
  console.log(`| request | target  | ${CONCURRENCY.map((c) => `c=${c}`.padStart(8)).join(' | ')} |`);
  console.log(`|---------|---------|${CONCURRENCY.map(() => '---------:').join('|')}|`);
  const ratios: Record<'json' | 'stream', number[]> = { json: [], stream: [] };
  for (const mode of ['json', 'stream'] as const) {
    const targets = make(mode, 64);
    const rates: Record<Kind, number[]> = { direct: [], proxy: [], gateway: [] };
    for (const c of CONCURRENCY) {
      for (const kind of KINDS) {
        await throughput(targets[kind], c, 0.3); // warm-up
        rates[kind].push(await throughput(targets[kind], c, SECONDS));
      }
    }
    await closeAll(targets);
    ratios[mode] = rates.gateway.map((rate, i) => rate / (rates.direct[i] ?? Number.NaN));
    for (const kind of KINDS) {
      const cells = rates[kind].map((value) => value.toFixed(0).padStart(8));
      console.log(`| ${mode.padEnd(7)} | ${kind.padEnd(7)} | ${cells.join(' | ')} |`);
    }
    const percent = ratios[mode].map((ratio) => `${(ratio * 100).toFixed(0)}%`.padStart(8));
    console.log(`| ${mode.padEnd(7)} | ratio   | ${percent.join(' | ')} |`);
  }
  console.log();
  return ratios;
}

async function main(): Promise<void> {
  const simulator = await spawnServer({ role: 'simulator' });
  const proxy = await spawnServer({ role: 'proxy', simulatorUrl: simulator.ready.url });
  const gateway = await spawnServer({
    role: 'gateway',
    simulatorUrl: simulator.ready.origin ?? '',
    simulatorEnv: simulator.ready.env ?? {},
    logLevel: args['log-level'],
    dbDir: args['db-dir'],
    databaseUrl: args['database-url'],
  });
  const auth = { authorization: `Bearer ${gateway.ready.token ?? ''}` };
  const messages = [
    { role: 'user', content: 'Summarise the benefits of connection pooling in two sentences.' },
  ];
  const bodies = {
    json: (model: string) => ({ model, messages }),
    stream: (model: string) => ({ model, messages, stream: true, stream_options: { include_usage: true } }),
  };
  const make: Make = (mode, connections) => ({
    direct: target(simulator.ready.url, {}, bodies[mode]('gpt-5.4-2026-03-05'), connections),
    proxy: target(proxy.ready.url, {}, bodies[mode]('gpt-5.4-2026-03-05'), connections),
    gateway: target(`${gateway.ready.url}/v1`, auth, bodies[mode](args.model), connections),
  });

  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const db = args['database-url'] ? 'PostgreSQL' : `SQLite in ${args['db-dir'] ?? tmpdir()}`;
  const load = loadavg().map((value) => value.toFixed(1));
  console.log(
    `Gateway benchmark, ${new Date().toISOString()}: ${cpus().length} x ${cpu}, Node ${process.version}`,
  );
  console.log(`model "${args.model}" through the gateway (simulator: zero delay, 16-token replies);`);
  console.log(`log level ${args['log-level']}; database ${db}; load average at start ${load.join(' ')}`);
  console.log();

  const added = await latencyPhase(make);
  const ratios = await throughputPhase(make);
  const verdict = (ok: boolean) => (ok ? 'met' : 'MISSED');
  console.log(
    `Targets: added p50 <= ${TARGETS.addedP50} ms ${verdict(added.json[0] <= TARGETS.addedP50)}; ` +
      `added p99 <= ${TARGETS.addedP99} ms ${verdict(added.json[1] <= TARGETS.addedP99)}; ` +
      `TTFT added p99 <= ${TARGETS.ttftP99} ms ${verdict(added.ttft[1] <= TARGETS.ttftP99)}; ` +
      `c=64 >= ${TARGETS.ratioC64 * 100}% of direct: JSON ${verdict((ratios.json[2] ?? 0) >= TARGETS.ratioC64)}, ` +
      `stream ${verdict((ratios.stream[2] ?? 0) >= TARGETS.ratioC64)}`,
  );
  await gateway.stop();
  await proxy.stop();
  await simulator.stop();
}

await main();
