/**
 * CPU instructions per request (a script, not a test): each gateway runs alone in a child
 * process under Valgrind's callgrind, and the instructions it executes for `--requests`
 * sequential requests after `--warmup` are counted. Unlike CPU time on a shared 2-core
 * machine, the count barely moves between runs, so a 3% change is visible; it still counts
 * what the CPU time measures (the gateway's JavaScript, V8's compiler and GC, since V8 runs
 * single-threaded here, and the native code of SQLite, llhttp and undici).
 *
 *   node bench/gateway/instructions.ts --baseline DIR [--requests 200] [--warmup 400]
 *                                      [--modes json,stream] [--rounds 2] [--model gpt-5.4]
 *                                      [--concurrency 1] [--gateway DIR] [--flush-ms 1000]
 *
 * Prints `net` (less the idle gateway's rate, see measure), `raw` and `steady` (`net` without V8's
 * optimizing compilers) figures.
 * `--baseline DIR` is another version of this repository (e.g. `git worktree add --detach DIR
 * REV` and its node_modules), measured in the same run, alternating with this one. Prints
 * instructions per request of each and their ratio (median over rounds). `--keep DIR` keeps each
 * dump there (`callgrind_annotate` shows its native functions). `--concurrency N` keeps N
 * requests in flight (N clients, each sequential): what the group commit and the GC see at load.
 * `--flush-ms` is the ledger's group-commit interval under Valgrind (20 ms at full speed): the
 * rows per commit of full speed rather than one commit per row, which would count SQLite's
 * per-commit work 50 times over. `--gateway DIR` measures another version in place of this one (a past change against its
 * parent). Needs `valgrind`.
 */
import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { parseArgs } from 'node:util';
import { median, once, type Target, target } from './measure.ts';
import type { GatewayRole, Ready } from './servers.ts';
import { spawnServer } from './spawn.ts';

const run = promisify(execFile);
const { values: args } = parseArgs({
  options: {
    baseline: { type: 'string' },
    requests: { type: 'string', default: '200' },
    warmup: { type: 'string', default: '400' },
    modes: { type: 'string', default: 'json,stream' },
    rounds: { type: 'string', default: '2' },
    model: { type: 'string', default: 'gpt-5.4' },
    keep: { type: 'string' },
    'idle-seconds': { type: 'string', default: '20' },
    concurrency: { type: 'string', default: '1' },
    gateway: { type: 'string' },
    'flush-ms': { type: 'string', default: '1000' },
  },
});
type Mode = 'json' | 'stream';
const THIS_REPOSITORY = resolve(import.meta.dirname, '../..');
const messages = [
  { role: 'user', content: 'Summarise the benefits of connection pooling in two sentences.' },
];
const bodies: Record<Mode, object> = {
  json: { model: args.model, messages },
  stream: { model: args.model, messages, stream: true, stream_options: { include_usage: true } },
};

/** A gateway of `root` under callgrind with instrumentation off until the warm-up is over. */
async function startUnderCallgrind(root: string, role: GatewayRole, outDir: string) {
  const child: ChildProcess = spawn(
    'valgrind',
    [
      '--tool=callgrind',
      // V8 writes and rewrites machine code: Valgrind must notice it everywhere, not just on the stack.
      '--smc-check=all-non-file',
      '--instr-atstart=no',
      `--callgrind-out-file=${join(outDir, 'callgrind.%p')}`,
      process.execPath,
      // V8 on one thread, without the memory reducer (GC run by wall-clock timers when idle).
      '--single-threaded',
      '--no-memory-reducer',
      join(root, 'bench/gateway/gateway-process.ts'),
    ],
    {
      stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
      env: { ...process.env, BENCH_LEDGER_FLUSH_MS: args['flush-ms'] },
    },
  );
  const ready = await new Promise<Ready>((done, fail) => {
    child.once('message', (message) => done(message as Ready));
    child.once('exit', (code) => fail(new Error(`gateway under valgrind exited (${code})`)));
    child.send({ ...role, root });
  });
  return { child, ready, pid: String(child.pid) };
}

interface Measured {
  /** Instructions per request, everything counted. */
  readonly raw: number;
  /** The same less what the idle gateway executes in as much time (its timers, its GC). */
  readonly net: number;
  /**
   * `net` less V8's optimizing compilers (TurboFan, Maglev): work that tiers code up once, still
   * running thousands of requests into a run under Valgrind, which a long-lived process amortizes.
   */
  readonly steady: number;
}

/**
 * Instructions the gateway of `root` executes per request of `mode`, after the warm-up. Under
 * Valgrind a request takes about 50 times longer, so the gateway's periodic work (alert checks,
 * samplers), negligible per request at full speed, is counted on its own for `--idle-seconds`
 * after the requests and taken off at the same rate.
 */
async function measure(root: string, role: GatewayRole, mode: Mode, name: string): Promise<Measured> {
  const outDir = mkdtempSync(join(tmpdir(), 'gw-instr-'));
  const { child, ready, pid } = await startUnderCallgrind(root, role, outDir);
  try {
    const t = target(
      `${ready.url}/v1`,
      { authorization: `Bearer ${ready.token ?? ''}` },
      bodies[mode],
      CLIENTS,
    );
    await load(t, Number(args.warmup));
    await run('callgrind_control', ['--instr=on', pid]);
    // Busy first: a gateway idle first would bring idle-time work into the busy window.
    const busy = await counted(pid, () => load(t, Number(args.requests)));
    const idle = await counted(
      pid,
      () => new Promise((done) => setTimeout(done, Number(args['idle-seconds']) * 1000)),
    );
    await t.pool.close();
    const dumps = dumpsIn(outDir);
    if (args.keep) {
      mkdirSync(args.keep, { recursive: true });
      copyFileSync(dumps[0] ?? '', join(args.keep, name));
    }
    const [busyIr, idleIr] = dumps.map(instructionsIn) as [number, number];
    const requests = Number(args.requests);
    const idleRate = idleIr / idle.seconds;
    const net = (busyIr - idleRate * busy.seconds) / requests;
    const compiling = (await compilerInstructions(dumps[0] ?? '')) / requests;
    return { raw: busyIr / requests, net, steady: net - compiling };
  } finally {
    const exited = new Promise((done) => child.once('exit', done));
    child.send('close');
    await exited;
    rmSync(outDir, { recursive: true, force: true });
  }
}

const CLIENTS = Number(args.concurrency);

/** `requests` requests, `CLIENTS` at a time. */
async function load(t: Target, requests: number): Promise<void> {
  let left = requests;
  const client = async () => {
    while (left-- > 0) await once(t);
  };
  await Promise.all(Array.from({ length: CLIENTS }, client));
}

/** Zeroes the counters, runs `work`, dumps: the dump holds what the gateway did meanwhile. */
async function counted(pid: string, work: () => Promise<unknown>): Promise<{ seconds: number }> {
  await run('callgrind_control', ['--zero', pid]);
  const started = performance.now();
  await work();
  const seconds = (performance.now() - started) / 1000;
  await run('callgrind_control', ['--dump', pid]);
  return { seconds };
}

/** The dumps callgrind_control asked for, in order (the exit writes one more, later). */
function dumpsIn(outDir: string): string[] {
  const numbered = readdirSync(outDir)
    .map((name) => ({ name, n: Number(/^callgrind\.\d+\.(\d+)$/.exec(name)?.[1] ?? Number.NaN) }))
    .filter(({ n }) => Number.isFinite(n))
    .sort((a, b) => a.n - b.n);
  if (numbered.length < 2) throw new Error(`expected two callgrind dumps in ${outDir}`);
  return numbered.map(({ name }) => join(outDir, name));
}

/** The dump's `summary:` line: the instructions executed while it counted. */
function instructionsIn(dump: string): number {
  const summary = /^summary:\s+(\d+)/m.exec(readFileSync(dump, 'utf8'));
  if (!summary?.[1]) throw new Error(`no summary line in ${dump}`);
  return Number(summary[1]);
}

/** Instructions the dump counts in V8's optimizing compilers (by function name). */
async function compilerInstructions(dump: string): Promise<number> {
  const { stdout } = await run('callgrind_annotate', ['--inclusive=no', '--threshold=100', dump], {
    maxBuffer: 64 * 1024 * 1024,
  });
  let total = 0;
  for (const line of stdout.split('\n')) {
    const match = /^\s*([\d,]+) \([\s\d.]+%\)\s+(.*)$/.exec(line);
    if (match?.[1] && match[2] && /v8::internal::(compiler|maglev)::/.test(match[2]))
      total += Number(match[1].replaceAll(',', ''));
  }
  return total;
}

const format = (value: number) => Math.round(value).toLocaleString('en');

async function main(): Promise<void> {
  const simulator = await spawnServer({ role: 'simulator' });
  const role: GatewayRole = {
    role: 'gateway',
    simulatorUrl: simulator.ready.origin ?? '',
    simulatorEnv: simulator.ready.env ?? {},
    logLevel: 'info',
    dbDir: undefined,
    databaseUrl: undefined,
  };
  const roots = {
    gateway: args.gateway ? resolve(args.gateway) : THIS_REPOSITORY,
    ...(args.baseline && { baseline: resolve(args.baseline) }),
  };
  console.log(
    `Instructions per request under callgrind (${args.warmup} warm-up, ${args.requests} measured, ` +
      `${CLIENTS === 1 ? 'sequential' : `${CLIENTS} at a time`}, model ${args.model}, SQLite), ${args.rounds} rounds`,
  );
  for (const mode of args.modes.split(',') as Mode[]) {
    const counts: Record<string, Measured[]> = {};
    for (let round = 0; round < Number(args.rounds); round++)
      for (const [kind, root] of Object.entries(roots)) {
        const measured = await measure(root, role, mode, `${mode}-${kind}-${round + 1}.callgrind`);
        (counts[kind] ??= []).push(measured);
        console.log(
          `  ${mode} round ${round + 1} ${kind}: ${format(measured.net)} (raw ${format(measured.raw)}, ` +
            `without the optimizing compiler ${format(measured.steady)})`,
        );
      }
    for (const figure of ['net', 'raw', 'steady'] as const) {
      const head = median((counts.gateway ?? []).map((m) => m[figure]));
      const base = counts.baseline && median(counts.baseline.map((m) => m[figure]));
      const ratio = base ? ` (baseline ${format(base)}, x${(head / base).toFixed(3)})` : '';
      console.log(`${mode} ${figure}: ${format(head)} instructions/request${ratio}`);
    }
  }
  await simulator.stop();
}

await main();
