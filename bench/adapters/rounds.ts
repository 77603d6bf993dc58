/**
 * Timing for a noisy, shared machine. A figure is the process's CPU time per call, so time spent
 * descheduled while others run is not counted (what remains of their noise is shared caches).
 * Every figure is timed in many short rounds, and the rounds of all figures are interleaved
 * across the whole run: a burst of other work (a test run, a build) slows a few rounds of every
 * figure rather than all rounds of one. Other work only ever adds time, so each figure's best
 * round is the one nearest to the code's own cost.
 */
export type Figure = () => number;

interface Case {
  readonly work: () => unknown;
  best: number;
}

export class Rounds {
  readonly #cases: Case[] = [];
  readonly #rounds: number;
  readonly #roundNs: bigint;

  constructor(totalSeconds: number, rounds: number) {
    this.#rounds = Math.max(1, Math.floor(rounds));
    this.#roundNs = BigInt(Math.round((totalSeconds / this.#rounds) * 1e9));
  }

  /** Registers `work`; the figure (microseconds per call) is known once `run()` has returned. */
  add(work: () => unknown): Figure {
    const entry: Case = { work, best: Number.NaN };
    this.#cases.push(entry);
    return () => entry.best;
  }

  run(): void {
    for (const entry of this.#cases) {
      for (let i = 0; i < 2_000; i++) entry.work();
      entry.best = Infinity;
    }
    for (let round = 0; round < this.#rounds; round++) {
      for (const entry of this.#cases) entry.best = Math.min(entry.best, this.#time(entry.work));
    }
  }

  /** CPU time, not wall time: while the scheduler runs someone else, no time is counted. */
  #time(work: () => unknown): number {
    let calls = 0;
    const start = process.hrtime.bigint();
    const cpu = process.cpuUsage();
    while (process.hrtime.bigint() - start < this.#roundNs) {
      for (let i = 0; i < 50; i++) work();
      calls += 50;
    }
    const used = process.cpuUsage(cpu);
    return (used.user + used.system) / calls;
  }
}
