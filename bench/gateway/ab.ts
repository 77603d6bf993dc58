/**
 * A change against its parent, CPU per request (a script, not a test): `run.ts --processes` (each
 * gateway in a process of its own) started `--runs` times, the rounds of every run pooled, and
 * the median of each cell compared. On a shared 2-core VM one pair of processes can read +-10%
 * for identical code for its whole life (where V8 tiers code up, which core it gets): rounds
 * within a run do not average that out, fresh processes do. Every other run swaps the two
 * versions' places in run.ts (which starts, warms and measures them in a fixed order), so that
 * order's own bias cancels; use an even `--runs`.
 *
 *   node bench/gateway/ab.ts --baseline DIR [--gateway DIR] [--runs 4] [--modes json,stream]
 *                            [--concurrency 1,16,64] [--rounds 5] [--seconds 3] [--warmup-seconds 3]
 *
 * Prints, per mode and concurrency, the pooled median CPU microseconds per request of each and
 * their ratio, and each run's own ratio (its spread is the noise the pooling removes).
 */
import { execFile } from 'node:child_process';
import { loadavg } from 'node:os';
import { resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { median } from './measure.ts';

const { values: args } = parseArgs({
  options: {
    baseline: { type: 'string' },
    gateway: { type: 'string' },
    runs: { type: 'string', default: '4' },
    modes: { type: 'string', default: 'json' },
    concurrency: { type: 'string', default: '1,16,64' },
    rounds: { type: 'string', default: '5' },
    seconds: { type: 'string', default: '3' },
    'warmup-seconds': { type: 'string', default: '3' },
  },
});
if (!args.baseline) throw new Error('--baseline DIR is required');

type Cells = Map<string, { gateway: number[]; baseline: number[] }>;

const THIS_REPOSITORY = resolve(import.meta.dirname, '../..');

/**
 * One run of run.ts; the rounds it printed (BENCH_VERBOSE), by cell. `swapped` runs the
 * baseline in run.ts's gateway slot and this change in its baseline slot (the rounds are
 * filed back under their own side): the slots are started and warmed in a fixed order, and
 * one version against itself read 1.07 at c=16 with it always in the same slot.
 */
async function oneRun(swapped: boolean): Promise<Cells> {
  const change = args.gateway ?? THIS_REPOSITORY;
  const baseline = args.baseline ?? '';
  const [inGatewaySlot, inBaselineSlot] = swapped ? [baseline, change] : [change, baseline];
  const runArgs = [
    resolve(import.meta.dirname, 'run.ts'),
    ...['--phases', 'throughput', '--processes', '--kinds', 'gateway,baseline'],
    ...['--gateway', inGatewaySlot, '--baseline', inBaselineSlot],
    ...['--modes', args.modes, '--concurrency', args.concurrency],
    ...['--rounds', args.rounds, '--seconds', args.seconds, '--warmup-seconds', args['warmup-seconds']],
  ];
  const { stdout } = await promisify(execFile)(process.execPath, runArgs, {
    env: { ...process.env, BENCH_VERBOSE: '1' },
    maxBuffer: 16 * 1024 * 1024,
  });
  const cells: Cells = new Map();
  for (const line of stdout.split('\n')) {
    const match = /^(json|stream) (c=\d+) (gateway|baseline): ([\d ]+)$/.exec(line.trim());
    if (!match?.[1] || !match[2] || !match[4]) continue;
    const key = `${match[1]} ${match[2]}`;
    const cell = cells.get(key) ?? { gateway: [], baseline: [] };
    const side = (match[3] === 'gateway') !== swapped ? 'gateway' : 'baseline';
    cell[side].push(...match[4].trim().split(/\s+/).map(Number));
    cells.set(key, cell);
  }
  if (cells.size === 0) throw new Error(`run.ts printed no rounds:\n${stdout.slice(-2000)}`);
  return cells;
}

async function main(): Promise<void> {
  const load = loadavg().map((value) => value.toFixed(1));
  console.log(
    `CPU per request, ${args.gateway ?? 'this tree'} against ${args.baseline}: ${args.runs} runs of ` +
      `${args.rounds} rounds x ${args.seconds} s, each gateway in its own process; load ${load.join(' ')}`,
  );
  const pooled: Cells = new Map();
  const perRun = new Map<string, number[]>();
  for (let run = 0; run < Number(args.runs); run++) {
    for (const [key, cell] of await oneRun(run % 2 === 1)) {
      const all = pooled.get(key) ?? { gateway: [], baseline: [] };
      all.gateway.push(...cell.gateway);
      all.baseline.push(...cell.baseline);
      pooled.set(key, all);
      const ratios = perRun.get(key) ?? [];
      ratios.push(median(cell.gateway) / median(cell.baseline));
      perRun.set(key, ratios);
    }
  }
  console.log();
  // The geometric mean of the runs' ratios pairs each run with itself: runs on a slower or
  // faster machine state weigh the same, and a swapped run's place bias cancels its neighbour's.
  console.log('| cell | gateway us | baseline us | ratio | geomean of runs | each run |');
  console.log('|---|---:|---:|---:|---:|---|');
  for (const [key, cell] of pooled) {
    const [gateway, baseline] = [median(cell.gateway), median(cell.baseline)];
    const runs = perRun.get(key) ?? [];
    const geomean = Math.exp(runs.reduce((sum, ratio) => sum + Math.log(ratio), 0) / runs.length);
    const each = runs.map((ratio) => ratio.toFixed(2)).join(', ');
    console.log(
      `| ${key} | ${gateway.toFixed(0)} | ${baseline.toFixed(0)} | ${(gateway / baseline).toFixed(3)} | ${geomean.toFixed(3)} | ${each} |`,
    );
  }
}

await main();
