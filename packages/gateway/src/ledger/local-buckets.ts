import type { FastifyBaseLogger } from 'fastify';
import type { BucketKey, LeaseStore } from './lease-store.ts';

interface Waiter {
  readonly wanted: number;
  readonly resolve: (amount: number) => void;
  readonly reject: (error: unknown) => void;
  readonly exhausted: () => Error;
}

/**
 * This instance's share of one allocation bucket. `held` is exactly the open lease's
 * `amount_micros` in the database (it changes only after a commit that changed it there);
 * open reservations and settled costs not yet committed are taken out of it locally.
 */
export interface LocalBucket extends BucketKey {
  leaseId: number | undefined;
  held: number;
  /** Sum of open reservations on this instance. */
  reserved: number;
  /** Costs settled here whose ledger rows are not committed yet. */
  pending: number;
  lastUsedAt: number;
  leasing: boolean;
  /**
   * The last lease write got less than it asked for: the bucket had nothing more beyond what is
   * leased. Until that can have changed, requests the lease cannot cover are answered from
   * memory (the partial reservation or 402) instead of asking the database again.
   */
  dry: boolean;
  readonly waiters: Waiter[];
}

/** What this instance can still reserve without the database; negative after an overshoot. */
export const available = (b: LocalBucket): number => b.held - b.reserved - b.pending;

/** A request of 0 micros still needs a bucket with something left, as before leases. */
const needOf = (wanted: number) => Math.max(wanted, 1);

/**
 * Reservations against the leases: served from memory while the lease covers them; otherwise
 * they wait while one lease write per bucket (never two at once) fetches what all waiting
 * requests lack, or a chunk. When the bucket cannot cover them all, the first one left gets what
 * remains (a partial reservation) and the others are refused with 402. A bucket found dry is
 * remembered, so a refusal costs no database write: until this instance returns its lease or
 * the allocation check sees something left in the bucket (at most `allocationCheckMs`).
 */
export function localBuckets(deps: {
  store: LeaseStore;
  chunkMicros: number;
  log: FastifyBaseLogger;
  onChange: () => void;
}) {
  const buckets: LocalBucket[] = [];
  // Looked up on every reservation: two map reads, no key string built per request.
  const byProject = new Map<number, Map<string, LocalBucket>>();

  function bucketOf(projectId: number, provider: string): LocalBucket {
    let ofProject = byProject.get(projectId);
    if (!ofProject) {
      ofProject = new Map();
      byProject.set(projectId, ofProject);
    }
    let bucket = ofProject.get(provider);
    if (!bucket) {
      bucket = {
        projectId,
        provider,
        leaseId: undefined,
        held: 0,
        reserved: 0,
        pending: 0,
        lastUsedAt: Date.now(),
        leasing: false,
        dry: false,
        waiters: [],
      };
      ofProject.set(provider, bucket);
      buckets.push(bucket);
    }
    return bucket;
  }

  /** The bucket if this instance has used it, without making one (balance reads). */
  const peek = (projectId: number, provider: string): LocalBucket | undefined =>
    byProject.get(projectId)?.get(provider);

  /** A reservation served from the lease in memory: `wanted`, or undefined when it has to wait. */
  function tryAcquire(b: LocalBucket, wanted: number): number | undefined {
    b.lastUsedAt = Date.now();
    if (b.waiters.length > 0 || available(b) < needOf(wanted)) return undefined;
    b.reserved += wanted;
    return wanted;
  }

  /** The amount reserved once a lease write covers it: `wanted`, or less when the bucket runs dry. */
  function wait(b: LocalBucket, wanted: number, exhausted: () => Error): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      b.waiters.push({ wanted, resolve, reject, exhausted });
      kick(b);
    });
  }

  function serve(b: LocalBucket): void {
    for (let head = b.waiters[0]; head && available(b) >= needOf(head.wanted); head = b.waiters[0]) {
      b.waiters.shift();
      b.reserved += head.wanted;
      head.resolve(head.wanted);
    }
  }

  /** The bucket could not cover every waiter: the first gets what is left, the rest 402. */
  function runDry(b: LocalBucket): void {
    serve(b);
    const head = b.waiters[0];
    if (head && available(b) > 0) {
      b.waiters.shift();
      const amount = available(b);
      b.reserved += amount;
      head.resolve(amount);
    }
    for (const waiter of b.waiters.splice(0)) waiter.reject(waiter.exhausted());
  }

  function kick(b: LocalBucket): void {
    if (b.leasing) return;
    b.leasing = true;
    // Requests arriving in the same tick are served by the same lease write.
    queueMicrotask(() => void pump(b));
  }

  async function pump(b: LocalBucket): Promise<void> {
    try {
      for (;;) {
        serve(b);
        if (b.waiters.length === 0) return;
        const demand = b.waiters.reduce((sum, w) => sum + needOf(w.wanted), 0) - available(b);
        const leased = b.dry ? 0 : await lease(b, demand);
        if (leased < demand) runDry(b);
      }
    } catch (error) {
      for (const waiter of b.waiters.splice(0)) waiter.reject(error);
    } finally {
      b.leasing = false;
      if (b.waiters.length > 0) kick(b);
    }
  }

  async function lease(b: LocalBucket, demand: number): Promise<number> {
    const taken = await deps.store.take(b, b.leaseId, demand, deps.chunkMicros);
    if (taken.lost) {
      // The lease expired (this instance stalled longer than the TTL) and another instance gave
      // its amount back to the bucket: what this instance thought it held is gone.
      deps.log.warn({ lease: b.leaseId, projectId: b.projectId, provider: b.provider }, 'budget lease lost');
      b.held = 0;
      b.leaseId = undefined;
    }
    if (taken.amount > 0) {
      b.leaseId = taken.leaseId;
      b.held += taken.amount;
    }
    if (taken.amount > 0 || taken.lost) deps.onChange();
    b.dry = taken.amount < demand;
    return taken.amount;
  }

  /** A reservation ends: its amount is free again here, `cost` waits for the group commit. */
  function close(b: LocalBucket, amount: number, cost: number): void {
    b.reserved -= amount;
    b.pending += cost;
    b.lastUsedAt = Date.now();
    if (b.waiters.length > 0) kick(b);
  }

  /**
   * Detaches the lease of every bucket that `pick` chooses and has nothing open or pending;
   * the caller gives them back. New requests on such a bucket start a new lease.
   */
  function detach(pick: (b: LocalBucket) => boolean): Array<{ bucket: LocalBucket; leaseId: number }> {
    const detached = [];
    for (const b of buckets) {
      const idle = b.reserved === 0 && b.pending === 0 && b.waiters.length === 0 && !b.leasing;
      if (b.leaseId === undefined || !idle || !pick(b)) continue;
      detached.push({ bucket: b, leaseId: b.leaseId });
      b.leaseId = undefined;
      b.held = 0;
      // What it held goes back to the bucket: the next request that needs it leases it again.
      b.dry = false;
    }
    if (detached.length > 0) deps.onChange();
    return detached;
  }

  /**
   * Takes up to `deficit` of the unused part of a lease out of local use (the caller gives it
   * back to the bucket). Returns the amount, 0 when nothing is unused or a lease write runs.
   */
  function carve(b: LocalBucket, deficit: number): number {
    if (b.leaseId === undefined || b.leasing) return 0;
    const amount = Math.min(deficit, available(b));
    if (amount <= 0) return 0;
    b.held -= amount;
    deps.onChange();
    return amount;
  }

  /**
   * The allocation check read what each bucket has beyond everything leased: a dry bucket with
   * something there again (an allocation raised, a lease returned or expired, by any instance)
   * may lease again.
   */
  function refilled(projectId: number, provider: string, left: number): void {
    const b = byProject.get(projectId)?.get(provider);
    if (b && left > 0) b.dry = false;
  }

  return {
    bucketOf,
    peek,
    refilled,
    tryAcquire,
    wait,
    close,
    detach,
    carve,
    all: () => [...buckets],
    leaseIds: () => buckets.flatMap((b) => (b.leaseId === undefined ? [] : [b.leaseId])),
  };
}

export type LocalBuckets = ReturnType<typeof localBuckets>;
