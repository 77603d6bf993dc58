/**
 * Gateway benchmark (a script, not a test): the same chat requests sent straight to the
 * simulator, through a bare pass-through proxy (the floor of any extra hop on this machine) and
 * through the gateway (auth, routing, metering on, production log level), in one run on one
 * machine. Simulator, proxy and gateway each run in a worker thread; this thread generates the
 * load with undici pools.
 *
 *   npm run bench:gateway -- [--pairs 2000] [--seconds 2] [--model gpt-5.4] [--log-level info]
 *                            [--db-dir /dev/shm] [--database-url postgres://...] [--baseline DIR]
 *                            [--portkey] [--kit] [--streams 1000] [--token-delay-ms 50] [--reply-tokens 100]
 *                            [--phases latency,throughput,streams] [--modes json,stream]
 *                            [--kinds direct,proxy,gateway,baseline,portkey] [--rounds 1]
 *                            [--cpu-prof DIR] [--processes] [--concurrency 1,16,64]
 *                            [--warmup-seconds 3] [--gateway DIR]
 *
 * The embedded default database is a SQLite file in the OS temp dir; `--db-dir` moves it (a
 * tmpfs shows the cost of the disk's fsync), `--database-url` runs on PostgreSQL instead.
 * `--baseline DIR` also starts the gateway of another version of this repository (e.g.
 * `git archive HEAD | tar -x -C DIR` and a `node_modules` symlink) on the same database kind and
 * adds it to the throughput table, so a change is measured against its parent in one run.
 * Prints added latency at concurrency 1 (interleaved; p50 and p99 of gateway minus direct), the
 * streaming time-to-first-token overhead, and requests/s at concurrency 1, 16 and 64.
 * `--portkey` adds Portkey 1.15.2 as a peer (peers.ts: installed from npm on demand); `--kit`
 * adds the kit's server with one forwarding route (kit-proxy.ts, JSON only): the gateway's stack
 * without its logic, between the bare proxy and the gateway.
 * The streams phase (slow-streams.ts) holds `--streams` slow SSE streams open through a gateway
 * in a child process and reports its RSS and event-loop delay. `--cpu-prof DIR` runs every
 * gateway of the run as a child process under `node --cpu-prof` (profile-top.ts reads it);
 * `--processes` runs them as child processes without the profiler, so the CPU per request is the
 * whole process's (GC and libuv threads included), not the server thread's alone. `--gateway DIR`
 * runs another version in this one's place (a past change against its parent, `--baseline`).
 * Ends with a table of the issue's targets, PASS or FAIL.
 */
import { cpus, loadavg, tmpdir } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { interleaved, percentile, type Target, type Timing, target } from './measure.ts';
import { type Peer, startPortkey } from './peers.ts';
import type { GatewayRole } from './servers.ts';
import { type SlowStreamsResult, slowStreams } from './slow-streams.ts';
import { forkGateway, spawnServer } from './spawn.ts';
import { closeAll, type Kind, type Make, type Rates, type Servers, throughputPhase } from './throughput.ts';
import { type Verdict, printTargets } from './targets.ts';

const { values: args } = parseArgs({
  options: {
    pairs: { type: 'string', default: '2000' },
    seconds: { type: 'string', default: '2' },
    model: { type: 'string', default: 'gpt-5.4' },
    'log-level': { type: 'string', default: 'info' },
    'db-dir': { type: 'string' },
    'database-url': { type: 'string' },
    baseline: { type: 'string' },
    portkey: { type: 'boolean', default: false },
    kit: { type: 'boolean', default: false },
    streams: { type: 'string', default: '1000' },
    'token-delay-ms': { type: 'string', default: '50' },
    'reply-tokens': { type: 'string', default: '100' },
    phases: { type: 'string', default: 'latency,throughput,streams' },
    modes: { type: 'string', default: 'json,stream' },
    kinds: { type: 'string' },
    rounds: { type: 'string', default: '1' },
    'cpu-prof': { type: 'string' },
    processes: { type: 'boolean', default: false },
    gateway: { type: 'string' },
    concurrency: { type: 'string', default: '1,16,64' },
    'warmup-seconds': { type: 'string', default: '3' },
  },
});
const ROUNDS = Number(args.pairs);
const SECONDS = Number(args.seconds);
/** Each throughput cell measured this many times, the targets taking turns; the median is kept. */
const ROUNDS_PER_CELL = Number(args.rounds);
/** `--concurrency 64` measures one column (an A/B on the cell in question, more rounds). */
const CONCURRENCY = args.concurrency.split(',').map(Number);
const PHASES = new Set(args.phases.split(','));
/**
 * Request kinds of the throughput phase (`--modes json` profiles the JSON path alone);
 * `--kinds gateway` measures only the gateway there (a profile with no idle gaps); `--rounds N`
 * measures each cell N times, the targets taking turns, and keeps the medians (A/B on a busy VM).
 */
const MODES = (['json', 'stream'] as const).filter((mode) => args.modes.split(',').includes(mode));
/** The issue's targets (issue 12): ms, ratios, MiB. */
const TARGETS = {
  p50OverProxy: 0.15,
  addedP99: 1,
  ttftP99: 1,
  c64OfDirect: 0.5,
  c64OfProxy: 0.8,
  timesPortkey: 8,
  rssMiB: 200,
  stallMs: 20,
};
const KINDS = ['direct', 'proxy', 'gateway'] as const;
/** The targets of the throughput table: the gateway of `--baseline` and Portkey join the three. */
const THROUGHPUT_KINDS: readonly Kind[] = [
  ...KINDS,
  ...(args.kit ? (['kit'] as const) : []),
  ...(args.baseline ? (['baseline'] as const) : []),
  ...(args.portkey ? (['portkey'] as const) : []),
].filter((kind) => args.kinds === undefined || args.kinds.split(',').includes(kind));

const ms = (value: number) => (Number.isNaN(value) ? '-' : value.toFixed(3)).padStart(7);
const sorted = (timings: readonly Timing[], pick: keyof Timing) =>
  timings.map((t) => t[pick]).sort((a, b) => a - b);

/** p50 and p99 of one target minus those of direct, ms. */
type Added = readonly [p50: number, p99: number];
type LatencyKind = 'proxy' | 'gateway' | 'portkey';
const LATENCY_KINDS: readonly Kind[] = [
  'direct',
  'proxy',
  'gateway',
  ...(args.portkey ? ['portkey' as const] : []),
];

/** One latency row: p50 and p99 of each target, and each one minus direct. */
function latencyRow(name: string, runs: Partial<Record<Kind, Timing[]>>, pick: keyof Timing) {
  const values = (kind: Kind) => sorted(runs[kind] ?? [], pick);
  const direct = values('direct');
  const added: Partial<Record<LatencyKind, Added>> = {};
  const cells: number[] = [];
  for (const p of [50, 99]) cells.push(...LATENCY_KINDS.map((kind) => percentile(values(kind), p)));
  for (const kind of LATENCY_KINDS) {
    if (kind === 'direct') continue;
    const v = values(kind);
    const pair: Added = [
      percentile(v, 50) - percentile(direct, 50),
      percentile(v, 99) - percentile(direct, 99),
    ];
    if (runs[kind]) added[kind as LatencyKind] = pair;
    cells.push(...pair);
  }
  return { row: `| ${name.padEnd(19)} | ${cells.map(ms).join(' | ')} |`, added };
}

type LatencyResult = Record<'json' | 'ttft', Partial<Record<LatencyKind, Added>>>;

/** Concurrency 1, interleaved; returns each target's added p50 and p99 of JSON and of the first streamed token. */
async function latencyPhase(make: Make): Promise<LatencyResult> {
  const latency = { json: make('json', 1), stream: make('stream', 1) };
  // Portkey answers every stream with a 500 here (see peers.ts): it runs in the JSON rounds only.
  const rounds = async (targets: Partial<Record<Kind, Target>>, count: number) => {
    const kinds = LATENCY_KINDS.filter((kind) => targets[kind]);
    const runs = await interleaved(
      kinds.map((kind) => targets[kind] as Target),
      count,
    );
    return Object.fromEntries(kinds.map((kind, i) => [kind, runs[i] ?? []])) as Partial<
      Record<Kind, Timing[]>
    >;
  };
  for (const targets of Object.values(latency)) await rounds(targets, 300); // warm-up
  const jsonRuns = await rounds(latency.json, ROUNDS);
  const streamRuns = await rounds(latency.stream, ROUNDS);
  await Promise.all([closeAll(latency.json), closeAll(latency.stream)]);
  console.log(`Latency at concurrency 1, ms (${ROUNDS} interleaved rounds); +X = X - direct`);
  console.log();
  const others = LATENCY_KINDS.filter((kind) => kind !== 'direct');
  const titles = [
    ...[50, 99].flatMap((p) => LATENCY_KINDS.map((kind) => `${kind} p${p}`)),
    ...others.flatMap((kind) => [`+${kind} p50`, `+${kind} p99`]),
  ].map((title) => title.padStart(7));
  console.log(`| ${'request'.padEnd(19)} | ${titles.join(' | ')} |`);
  console.log(`|${'-'.repeat(21)}|${titles.map((title) => `${'-'.repeat(title.length + 1)}:`).join('|')}|`);
  const json = latencyRow('JSON', jsonRuns, 'total');
  const ttft = latencyRow('stream, first token', streamRuns, 'first');
  const streamTotal = latencyRow('stream, complete', streamRuns, 'total');
  for (const row of [json, ttft, streamTotal]) console.log(row.row);
  console.log();
  return { json: json.added, ttft: ttft.added };
}

function printStreams(result: SlowStreamsResult): void {
  const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
  console.log(
    `Slow streams: ${args.streams} SSE streams at once through one gateway process (simulator: ` +
      `${args['reply-tokens']} tokens, one per ${args['token-delay-ms']} ms; upstream connections = streams); ` +
      `${result.completed} completed; all open after ${result.openingMs.toFixed(0)} ms`,
  );
  console.log();
  console.log(
    '| gateway process             | RSS MiB now | RSS MiB peak | loop delay p99 ms | loop delay max ms |',
  );
  console.log(
    '|-----------------------------|------------:|-------------:|------------------:|------------------:|',
  );
  for (const [label, s] of [
    ['idle, after start-up', result.idle],
    ['opening the streams', result.opening],
    ['all open, streaming, ending', result.open],
  ] as const)
    console.log(
      `| ${label.padEnd(27)} | ${mib(s.rssNow).padStart(11)} | ${mib(s.rssPeak).padStart(12)} | ` +
        `${s.delayP99.toFixed(1).padStart(17)} | ${s.delayMax.toFixed(1).padStart(17)} |`,
    );
  console.log();
}

function verdicts(latency?: LatencyResult, rates?: Rates, streams?: SlowStreamsResult): Verdict[] {
  const out: Verdict[] = [];
  const T = TARGETS;
  if (latency) {
    const [gw, bare] = [latency.json.gateway, latency.json.proxy];
    if (gw && bare) {
      out.push({
        name: 'JSON added p50 - proxy added p50',
        value: gw[0] - bare[0],
        unit: 'ms',
        max: T.p50OverProxy,
      });
      out.push({ name: 'JSON added p99', value: gw[1], unit: 'ms', max: T.addedP99 });
    }
    const [tgw, tbare] = [latency.ttft.gateway, latency.ttft.proxy];
    if (tgw && tbare) {
      out.push({
        name: 'TTFT added p50 - proxy added p50',
        value: tgw[0] - tbare[0],
        unit: 'ms',
        max: T.p50OverProxy,
      });
      out.push({ name: 'TTFT added p99', value: tgw[1], unit: 'ms', max: T.ttftP99 });
    }
  }
  for (const mode of ['json', 'stream'] as const) {
    const r = rates?.[mode];
    const at64 = (kind: Kind) => r?.[kind]?.[CONCURRENCY.indexOf(64)];
    const gateway = at64('gateway');
    if (gateway === undefined) continue;
    const ratio = (kind: Kind, min: number, name: string) => {
      const other = at64(kind);
      if (other !== undefined)
        out.push({ name: `${mode} c=64 ${name}`, value: gateway / other, unit: 'x', min });
    };
    ratio('direct', T.c64OfDirect, 'gateway / direct');
    ratio('proxy', T.c64OfProxy, 'gateway / proxy');
    ratio('portkey', T.timesPortkey, 'gateway / Portkey');
  }
  if (streams) {
    const peak = Math.max(streams.idle.rssPeak, streams.opening.rssPeak, streams.open.rssPeak) / 2 ** 20;
    out.push({ name: `${args.streams} streams: RSS peak`, value: peak, unit: 'MiB', max: T.rssMiB });
    out.push({
      name: 'event-loop max, opening',
      value: streams.opening.delayMax,
      unit: 'ms',
      max: T.stallMs,
    });
    out.push({ name: 'event-loop max, all open', value: streams.open.delayMax, unit: 'ms', max: T.stallMs });
    out.push({ name: 'streams completed', value: streams.completed, unit: '', min: Number(args.streams) });
  }
  return out;
}

async function main(): Promise<void> {
  const simulator = await spawnServer({ role: 'simulator' });
  const proxy = await spawnServer({ role: 'proxy', simulatorUrl: simulator.ready.url });
  const kit = args.kit
    ? await spawnServer({ role: 'kit', simulatorUrl: simulator.ready.url, logLevel: args['log-level'] })
    : undefined;
  const gatewayRole: GatewayRole = {
    role: 'gateway',
    simulatorUrl: simulator.ready.origin ?? '',
    simulatorEnv: simulator.ready.env ?? {},
    logLevel: args['log-level'],
    dbDir: args['db-dir'],
    databaseUrl: args['database-url'],
  };
  const profileDir = args['cpu-prof'] && resolve(args['cpu-prof']);
  const own = profileDir !== undefined || args.processes;
  /** The gateway of `root` (this repository, `--gateway` or `--baseline`): a process or a thread. */
  const start = (root: string | undefined) =>
    own
      ? forkGateway(
          gatewayRole,
          profileDir,
          root === undefined ? undefined : pathToFileURL(resolve(root, 'bench/gateway/gateway-process.ts')),
        )
      : spawnServer(
          gatewayRole,
          root === undefined ? undefined : pathToFileURL(resolve(root, 'bench/gateway/servers.ts')),
        );
  const gateway = await start(args.gateway);
  const baseline = args.baseline ? await start(args.baseline) : undefined;
  const portkey: Peer | undefined = args.portkey ? await startPortkey(simulator.ready.url) : undefined;
  const auth = { authorization: `Bearer ${gateway.ready.token ?? ''}` };
  const messages = [
    { role: 'user', content: 'Summarise the benefits of connection pooling in two sentences.' },
  ];
  const bodies = {
    json: (model: string) => ({ model, messages }),
    stream: (model: string) => ({ model, messages, stream: true, stream_options: { include_usage: true } }),
  };
  const upstreamModel = 'gpt-5.4-2026-03-05';
  const make: Make = (mode, connections) => ({
    direct: target(simulator.ready.url, {}, bodies[mode](upstreamModel), connections),
    proxy: target(proxy.ready.url, {}, bodies[mode](upstreamModel), connections),
    ...(kit &&
      mode === 'json' && { kit: target(kit.ready.url, {}, bodies[mode](upstreamModel), connections) }),
    gateway: target(`${gateway.ready.url}/v1`, auth, bodies[mode](args.model), connections),
    ...(baseline && {
      baseline: target(
        `${baseline.ready.url}/v1`,
        { authorization: `Bearer ${baseline.ready.token ?? ''}` },
        bodies[mode](args.model),
        connections,
      ),
    }),
    ...(portkey &&
      mode === 'json' && {
        portkey: target(portkey.url, portkey.headers, bodies[mode](upstreamModel), connections),
      }),
  });

  const cpu = cpus()[0]?.model ?? 'unknown CPU';
  const db = args['database-url'] ? 'PostgreSQL' : `SQLite in ${args['db-dir'] ?? tmpdir()}`;
  const load = loadavg().map((value) => value.toFixed(1));
  console.log(
    `Gateway benchmark, ${new Date().toISOString()}: ${cpus().length} x ${cpu}, Node ${process.version}`,
  );
  console.log(`model "${args.model}" through the gateway (simulator: zero delay, 16-token replies);`);
  console.log(`log level ${args['log-level']}; database ${db}; load average at start ${load.join(' ')}`);
  if (args.baseline) console.log(`baseline: the gateway of ${args.baseline}`);
  if (portkey)
    console.log('peer: Portkey gateway 1.15.2 (npm), provider openai, custom host = the simulator');
  if (profileDir) console.log(`gateway in a child process under --cpu-prof, profiles in ${profileDir}`);
  console.log();

  const latency = PHASES.has('latency') ? await latencyPhase(make) : undefined;
  const servers: Servers = {
    direct: simulator,
    proxy,
    gateway,
    ...(kit && { kit }),
    ...(baseline && { baseline }),
  };
  const rates = PHASES.has('throughput')
    ? await throughputPhase({
        make,
        servers,
        seconds: SECONDS,
        warmupSeconds: Number(args['warmup-seconds']),
        rounds: ROUNDS_PER_CELL,
        concurrency: CONCURRENCY,
        modes: MODES,
        kinds: THROUGHPUT_KINDS,
      })
    : undefined;
  await gateway.stop();
  await baseline?.stop();
  await portkey?.stop();
  await proxy.stop();
  await kit?.stop();
  await simulator.stop();
  const streams = PHASES.has('streams')
    ? await slowStreams({
        streams: Number(args.streams),
        tokenDelayMs: Number(args['token-delay-ms']),
        replyTokens: Number(args['reply-tokens']),
        gateway: {
          role: 'gateway',
          logLevel: args['log-level'],
          dbDir: args['db-dir'],
          databaseUrl: args['database-url'],
        },
        cpuProfDir: profileDir,
      })
    : undefined;
  if (streams) printStreams(streams);
  printTargets(verdicts(latency, rates, streams));
}

await main();
