/** The throughput phase of the gateway benchmark (run.ts): requests/s and CPU per request. */
import { percentile, type Target, throughput } from './measure.ts';
import type { Started } from './spawn.ts';

export type Kind = 'direct' | 'proxy' | 'gateway' | 'kit' | 'baseline' | 'portkey';
export type Mode = 'json' | 'stream';
export type Make = (mode: Mode, connections: number) => Partial<Record<Kind, Target>>;

export const closeAll = (targets: Partial<Record<Kind, Target>>) =>
  Promise.all(Object.values(targets).map((t) => t.pool.close()));

export interface ThroughputSetup {
  readonly make: Make;
  readonly servers: Servers;
  /** Seconds per cell. */
  readonly seconds: number;
  /** Load on each target before its first cell: JIT and heap settle, or the first rounds read high. */
  readonly warmupSeconds: number;
  /** Measurements per cell, the targets taking turns; the medians are kept. */
  readonly rounds: number;
  readonly concurrency: readonly number[];
  readonly modes: readonly Mode[];
  readonly kinds: readonly Kind[];
}

export type Rates = Record<'json' | 'stream', Partial<Record<Kind, number[]>>>;

const median = (values: readonly number[]) =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );
/** The servers whose CPU time the throughput phase reads (Portkey is not one of them). */
export type Servers = Partial<Record<Kind, Started>>;

/** One cell: requests/s, and CPU microseconds of the target's server thread per request. */
export async function cell(t: Target, c: number, server: Started | undefined, seconds: number) {
  await throughput(t, c, 0.3); // warm-up
  const before = await server?.cpu();
  const { rate, requests } = await throughput(t, c, seconds);
  const after = await server?.cpu();
  const cpu =
    before && after ? (after.user + after.system - before.user - before.system) / requests : Number.NaN;
  return { rate, cpu };
}

/**
 * CPU per request of each server thread, from the same cells: a measure of the work per request
 * that holds on a loaded machine, where requests/s follow whatever else runs.
 */
function printCpu(setup: ThroughputSetup, cpu: Rates): void {
  const { concurrency, modes, kinds } = setup;
  console.log('CPU per request, microseconds (user + system of the server thread, same cells)');
  console.log();
  console.log(`| request | target  | ${concurrency.map((c) => `c=${c}`.padStart(8)).join(' | ')} |`);
  console.log(`|---------|---------|${concurrency.map(() => '---------:').join('|')}|`);
  for (const mode of modes)
    for (const kind of kinds) {
      const cells = cpu[mode][kind];
      if (!cells || cells.every(Number.isNaN)) continue;
      const label = (kind === 'baseline' ? 'base' : kind).padEnd(7);
      const values = cells.map((value) => (Number.isNaN(value) ? '-' : value.toFixed(0)).padStart(8));
      console.log(`| ${mode.padEnd(7)} | ${label} | ${values.join(' | ')} |`);
    }
  console.log();
}

/** One mode's rows of the throughput table, with the gateway's ratios to direct and to base. */
function printRates(mode: Mode, kinds: readonly Kind[], rates: Partial<Record<Kind, number[]>>): void {
  const gateway = rates.gateway ?? [];
  const row = (label: string, cells: string[]) =>
    console.log(
      `| ${mode.padEnd(7)} | ${label.padEnd(7)} | ${cells.map((cell) => cell.padStart(8)).join(' | ')} |`,
    );
  for (const kind of kinds.filter((kind) => rates[kind]))
    row(
      kind === 'baseline' ? 'base' : kind,
      (rates[kind] ?? []).map((value) => value.toFixed(0)),
    );
  row(
    'ratio',
    gateway.map((rate, i) => `${((rate / (rates.direct?.[i] ?? Number.NaN)) * 100).toFixed(0)}%`),
  );
  if (rates.baseline)
    row(
      'vs base',
      gateway.map((rate, i) => `${(rate / (rates.baseline?.[i] ?? Number.NaN)).toFixed(2)}x`),
    );
}

/** Requests/s of each target at each concurrency. */
export async function throughputPhase(setup: ThroughputSetup): Promise<Rates> {
  const { make, servers, seconds, rounds } = setup;
  const { concurrency, modes, kinds } = setup;
  console.log(
    `Throughput, requests/s (${seconds} s per cell); ratio = gateway / direct; base = the --baseline gateway, vs base = gateway / base`,
  );
  console.log();
  console.log(`| request | target  | ${concurrency.map((c) => `c=${c}`.padStart(8)).join(' | ')} |`);
  console.log(`|---------|---------|${concurrency.map(() => '---------:').join('|')}|`);
  const all: Rates = { json: {}, stream: {} };
  const cpu: Rates = { json: {}, stream: {} };
  for (const mode of modes) {
    const targets = make(mode, 64);
    const rates: Partial<Record<Kind, number[]>> = {};
    for (const kind of kinds) {
      const t = targets[kind];
      if (t && setup.warmupSeconds > 0) await throughput(t, Math.max(...concurrency), setup.warmupSeconds);
    }
    for (const c of concurrency) {
      const runs: Partial<Record<Kind, { rate: number; cpu: number }[]>> = {};
      // Odd rounds go in reverse order: whoever is measured first after a pause (or right after
      // the warm-up) reads differently, and in one fixed order the same code read 5-7% apart.
      for (let round = 0; round < rounds; round++)
        for (const kind of round % 2 === 0 ? kinds : [...kinds].reverse()) {
          const t = targets[kind];
          if (t) (runs[kind] ??= []).push(await cell(t, c, servers[kind], seconds));
        }
      for (const [kind, measured] of Object.entries(runs) as [Kind, { rate: number; cpu: number }[]][]) {
        // BENCH_VERBOSE=1: every round's CPU per request, to see the spread behind the median.
        if (process.env['BENCH_VERBOSE'])
          console.log(`${mode} c=${c} ${kind}: ${measured.map((m) => m.cpu.toFixed(0)).join(' ')}`);
        (rates[kind] ??= []).push(median(measured.map((m) => m.rate)));
        (cpu[mode][kind] ??= []).push(median(measured.map((m) => m.cpu)));
      }
    }
    await closeAll(targets);
    all[mode] = rates;
    printRates(mode, kinds, rates);
  }
  console.log();
  printCpu(setup, cpu);
  return all;
}
