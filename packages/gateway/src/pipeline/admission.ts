/**
 * Time-sliced admission of new requests. When a thousand requests arrive at once, Node runs
 * all of their callbacks in one poll phase, back to back: every stream already open waits
 * for the whole burst (hundreds of milliseconds). Here each loop turn admits new requests
 * until it has spent its budget since its first admission; later arrivals wait in a FIFO
 * queue that the next turns drain. Nothing is dropped or reordered, and an idle loop admits at
 * once (one clock read and, once per turn, one `setImmediate`).
 *
 * The budget is `budgetMs`, or `share` of the last turn's length while a queue is drained,
 * up to `maxBudgetMs`: when the open streams' own traffic already makes turns long, a fixed
 * few milliseconds per turn would admit a burst over many seconds (measured: 1,000 streams
 * took 3x longer to open), while a share keeps new requests' part of each turn bounded.
 *
 * The queue is drained by immediates scheduled one per waiting request (up to `perTurn`):
 * Node runs the microtasks of each immediate before the next, so a released request's
 * synchronous work (body parsing, handler, up to its first I/O) is counted before the next
 * release; one immediate would release the whole queue before any of that work ran.
 */

export interface AdmissionClock {
  /** Milliseconds, monotonic. */
  now(): number;
  /** Runs `task` at the end of this loop turn (setImmediate). */
  defer(task: () => void): void;
}

export interface AdmissionOptions {
  /** Synchronous request work a loop turn may start before deferring new requests. */
  readonly budgetMs: number;
  /** Part of the last turn's length a draining turn may spend (default 0.5). */
  readonly share?: number;
  /** Ceiling of a draining turn's budget (default 4 x budgetMs). */
  readonly maxBudgetMs?: number;
  /** Most releases tried per turn (immediates scheduled at once). */
  readonly perTurn?: number;
  readonly clock?: AdmissionClock;
}

export interface Admission {
  /** Calls `release` now, or in a later turn after every request queued before it. */
  admit(release: () => void): void;
  readonly queued: number;
}

const systemClock: AdmissionClock = {
  now: () => performance.now(),
  defer: (task) => void setImmediate(task),
};

export function createAdmission(options: AdmissionOptions): Admission {
  const { budgetMs, share = 0.5, perTurn = 64, clock = systemClock } = options;
  const maxBudgetMs = options.maxBudgetMs ?? 4 * budgetMs;
  const queue: Array<() => void> = [];
  /** When this turn admitted its first request; undefined until then. */
  let turnStart: number | undefined;
  /** Drain immediates scheduled and not yet run. */
  let scheduled = 0;
  let budget = budgetMs;
  /** When the last turn that drained the queue began (undefined after a turn without a queue). */
  let lastDrainStart: number | undefined;

  const endTurn = () => {
    if (queue.length === 0) lastDrainStart = undefined;
    turnStart = undefined;
    budget = budgetMs;
  };
  /** Starts the turn's clock at its first admission; true while the turn is within budget. */
  const withinBudget = (): boolean => {
    const now = clock.now();
    if (turnStart === undefined) {
      turnStart = now;
      clock.defer(endTurn);
      return true;
    }
    return now - turnStart < budget;
  };
  /** A turn that drains the queue gets a share of the turn before it, which was busy too. */
  const startDrainTurn = () => {
    if (turnStart !== undefined) return;
    const now = clock.now();
    if (lastDrainStart !== undefined)
      budget = Math.min(maxBudgetMs, Math.max(budgetMs, share * (now - lastDrainStart)));
    lastDrainStart = now;
  };
  const drainOne = () => {
    scheduled--;
    startDrainTurn();
    const next = queue[0];
    if (next !== undefined && withinBudget()) {
      queue.shift();
      next();
    }
    // The last immediate of a turn schedules the next turn's while requests still wait.
    if (scheduled === 0) schedule();
  };
  const schedule = () => {
    const count = Math.min(queue.length, perTurn) - scheduled;
    for (let i = 0; i < count; i++) {
      scheduled++;
      clock.defer(drainOne);
    }
  };

  return {
    admit(release) {
      if (queue.length === 0 && withinBudget()) {
        release();
        return;
      }
      queue.push(release);
      schedule();
    },
    get queued() {
      return queue.length;
    },
  };
}
