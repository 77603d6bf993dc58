import type { FastifyBaseLogger } from 'fastify';
import { type Insertable, type Kysely, sql } from 'kysely';
import type { GatewayDatabase, UsageTable } from '../db/schema.ts';
import type { LocalBucket } from './local-buckets.ts';

interface QueuedRow {
  readonly bucket: LocalBucket;
  readonly cost: number;
  readonly values: Insertable<UsageTable>;
  readonly done: { resolve(): void; reject(error: unknown): void };
}

/** Rows per INSERT statement: far below both engines' limits on bound parameters. */
const INSERT_SLICE = 400;
/** After a failed commit the rows wait this long before the next attempt. */
const RETRY_MS = 1_000;

interface BucketEffect {
  readonly bucket: LocalBucket;
  readonly cost: number;
  readonly leaseId: number | undefined;
  /** Moved from the lease (and `reserved`) to `spent`; 0 when the lease was gone. */
  decrement: number;
  lost: boolean;
}

/**
 * Group commit of the usage ledger: rows of settled and released requests wait in memory and
 * are written together, one transaction at most `flushMs` after the first of them (or at once
 * when `flushRows` wait). The same transaction moves each bucket's settled cost out of this
 * instance's lease into `spent`. A crash loses the rows still waiting (at most `flushMs` of
 * requests); the lease they were charged to expires and shows the most that was lost.
 */
export function groupCommit(deps: {
  db: Kysely<GatewayDatabase>;
  log: FastifyBaseLogger;
  flushMs: number;
  flushRows: number;
  leaseTtlMs: number;
  onCommitted: () => void;
}) {
  const queue: QueuedRow[] = [];
  let timer: NodeJS.Timeout | undefined;
  let immediate = false;
  let running: Promise<boolean> | undefined;

  function add(bucket: LocalBucket, cost: number, values: Insertable<UsageTable>): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      queue.push({ bucket, cost, values, done: { resolve, reject } });
      schedule(deps.flushMs);
    });
  }

  /** A full batch goes at once; otherwise the first row waiting sets the time. */
  function schedule(delayMs: number): void {
    if (running || queue.length === 0) return;
    const full = queue.length >= deps.flushRows;
    if (timer && (immediate || !full)) return;
    if (timer) clearTimeout(timer);
    immediate = full;
    timer = setTimeout(() => void run(), full ? 0 : delayMs);
  }

  /** Commits one batch; true when it was written. */
  function run(): Promise<boolean> {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (running) return running;
    const batch = queue.splice(0, deps.flushRows);
    running = commit(batch)
      .then(() => {
        for (const row of batch) row.done.resolve();
        return true;
      })
      .catch((error: unknown) => {
        queue.unshift(...batch);
        deps.log.error({ err: error, rows: batch.length }, 'usage ledger commit failed; retrying');
        return false;
      })
      .finally(() => {
        running = undefined;
      });
    void running.then((ok) => schedule(ok ? deps.flushMs : RETRY_MS));
    return running;
  }

  async function commit(batch: readonly QueuedRow[]): Promise<void> {
    const effects = effectsOf(batch);
    const now = new Date().toISOString();
    const expiresAt = new Date(Date.now() + deps.leaseTtlMs).toISOString();
    await deps.db.transaction().execute(async (trx) => {
      for (let i = 0; i < batch.length; i += INSERT_SLICE)
        await trx
          .insertInto('usage')
          .values(batch.slice(i, i + INSERT_SLICE).map((row) => row.values))
          .execute();
      // Lease row before allocation row, buckets in one order: the lock order of lease-store.ts.
      for (const effect of effects) {
        if (effect.leaseId !== undefined) {
          const moved = await trx
            .updateTable('budget_leases')
            .set({ amount_micros: sql`amount_micros - ${effect.decrement}`, expires_at: expiresAt })
            .where('id', '=', effect.leaseId)
            .where('closed_at', 'is', null)
            .executeTakeFirst();
          effect.lost = moved.numUpdatedRows === 0n;
          if (effect.lost) effect.decrement = 0;
        }
        await trx
          .updateTable('allocations')
          .set({
            spent_micros: sql`spent_micros + ${effect.cost}`,
            reserved_micros: sql`reserved_micros - ${effect.decrement}`,
            updated_at: now,
          })
          .where('project_id', '=', effect.bucket.projectId)
          .where('provider', '=', effect.bucket.provider)
          .execute();
      }
    });
    for (const effect of effects) apply(effect);
    deps.onCommitted();
  }

  function apply(effect: BucketEffect): void {
    const { bucket } = effect;
    bucket.pending -= effect.cost;
    // A lease replaced meanwhile (lost, then leased anew) is not the one this commit changed.
    if (bucket.leaseId !== effect.leaseId) return;
    if (effect.lost) {
      deps.log.warn({ lease: effect.leaseId, provider: bucket.provider }, 'budget lease lost');
      bucket.leaseId = undefined;
      bucket.held = 0;
    } else bucket.held -= effect.decrement;
  }

  /** Flushes until nothing waits; throws when a commit fails. */
  async function flush(): Promise<void> {
    while (queue.length > 0 || running) {
      const ok = await (running ?? run());
      if (!ok) throw new Error('the usage ledger could not be written; rows are kept for a retry');
    }
  }

  /** Gives up on rows that could not be written (shutdown with the database gone). */
  function abandon(error: unknown): number {
    if (timer) clearTimeout(timer);
    timer = undefined;
    const lost = queue.splice(0);
    for (const row of lost) row.done.reject(error);
    return lost.length;
  }

  return { add, flush, abandon, idle: () => queue.length === 0 && running === undefined };
}

/** Per bucket (in one order), the cost to move from this instance's lease into `spent`. */
function effectsOf(batch: readonly QueuedRow[]): BucketEffect[] {
  const costs = new Map<LocalBucket, number>();
  for (const row of batch) costs.set(row.bucket, (costs.get(row.bucket) ?? 0) + row.cost);
  return [...costs]
    .filter(([, cost]) => cost > 0)
    .sort(([a], [b]) => a.projectId - b.projectId || (a.provider < b.provider ? -1 : 1))
    .map(([bucket, cost]) => ({
      bucket,
      cost,
      leaseId: bucket.leaseId,
      decrement: bucket.leaseId === undefined ? 0 : Math.min(bucket.held, cost),
      lost: false,
    }));
}
