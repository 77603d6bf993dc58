import { engineOf } from '@app/db';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { GatewayDatabase } from '../db/schema.ts';
import { ledgerStatements, type UsageRow } from './batch-statements.ts';
import type { LocalBucket } from './local-buckets.ts';

interface QueuedRow {
  readonly bucket: LocalBucket;
  readonly cost: number;
  readonly values: UsageRow;
}

/**
 * The rows one transaction writes (at most `flushRows`). Its rows share one promise: they are
 * committed or retried together, and a promise per row was a third of a row's allocations.
 */
interface Batch extends PromiseWithResolvers<void> {
  readonly rows: QueuedRow[];
}

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
  const statements = ledgerStatements(engineOf(deps.db));
  /** Batches waiting, oldest first; only the last one takes new rows. */
  const waiting: Batch[] = [];
  let timer: NodeJS.Timeout | undefined;
  let immediate = false;
  let running: Promise<boolean> | undefined;

  function add(bucket: LocalBucket, cost: number, values: UsageRow): Promise<void> {
    let batch = waiting.at(-1);
    if (!batch || batch.rows.length >= deps.flushRows) {
      batch = { rows: [], ...Promise.withResolvers<void>() };
      waiting.push(batch);
    }
    batch.rows.push({ bucket, cost, values });
    schedule(deps.flushMs);
    return batch.promise;
  }

  /** A full batch goes at once; otherwise the first row waiting sets the time. */
  function schedule(delayMs: number): void {
    const first = waiting[0];
    if (running || !first) return;
    const full = waiting.length > 1 || first.rows.length >= deps.flushRows;
    if (timer && (immediate || !full)) return;
    if (timer) clearTimeout(timer);
    immediate = full;
    timer = setTimeout(() => void run(), full ? 0 : delayMs);
  }

  /** Commits the oldest batch; true when it was written (or nothing waited). */
  function run(): Promise<boolean> {
    if (timer) clearTimeout(timer);
    timer = undefined;
    if (running) return running;
    const batch = waiting.shift();
    if (!batch) return Promise.resolve(true);
    running = commit(batch.rows)
      .then(() => {
        batch.resolve();
        return true;
      })
      .catch((error: unknown) => {
        waiting.unshift(batch);
        deps.log.error({ err: error, rows: batch.rows.length }, 'usage ledger commit failed; retrying');
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
      for (const insert of statements.insertUsage(batch.map((row) => row.values)))
        await trx.executeQuery(insert);
      // Lease row before allocation row, buckets in one order: the lock order of lease-store.ts.
      for (const effect of effects) {
        if (effect.leaseId !== undefined) {
          const drain = statements.drainLease(effect.leaseId, effect.decrement, expiresAt);
          effect.lost = (await trx.executeQuery(drain)).numAffectedRows === 0n;
          if (effect.lost) effect.decrement = 0;
        }
        const { projectId, provider } = effect.bucket;
        await trx.executeQuery(
          statements.chargeBucket(projectId, provider, effect.cost, effect.decrement, now),
        );
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
    while (waiting.length > 0 || running) {
      const ok = await (running ?? run());
      if (!ok) throw new Error('the usage ledger could not be written; rows are kept for a retry');
    }
  }

  /** Gives up on rows that could not be written (shutdown with the database gone). */
  function abandon(error: unknown): number {
    if (timer) clearTimeout(timer);
    timer = undefined;
    let lost = 0;
    for (const batch of waiting.splice(0)) {
      lost += batch.rows.length;
      batch.reject(error);
    }
    return lost;
  }

  return { add, flush, abandon, idle: () => waiting.length === 0 && running === undefined };
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
