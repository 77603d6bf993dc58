import { randomUUID } from 'node:crypto';
import type { Meters } from '@app/provider-adapters/model/meters.ts';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type {
  AttemptActivity,
  BucketBalance,
  Ledger,
  ProviderId,
  Reservation,
  UsageRecord,
} from '../contracts.ts';
import type { GatewayDatabase, UsageStatus } from '../db/schema.ts';
import { gatewayErrors } from '../errors.ts';
import { metersJson } from './batch-statements.ts';
import { groupCommit } from './group-commit.ts';
import { isoClock, wholeMicros, wholeMs } from './ledger-values.ts';
import { leaseStore } from './lease-store.ts';
import { sweepStaleReservations } from './legacy-sweep.ts';
import { type LocalBucket, localBuckets } from './local-buckets.ts';

export interface LedgerOptions {
  /** Largest lease taken at a time, micro-dollars (0: only what waiting requests lack). */
  readonly chunkMicros: number;
  readonly leaseTtlMs: number;
  readonly flushMs: number;
  readonly flushRows: number;
  /** How often an instance looks for lowered allocations (the latency of `allocations set`). */
  readonly allocationCheckMs: number;
}

/** The defaults of the `GATEWAY_LEDGER_*` settings (access/config.ts). */
export const DEFAULT_LEDGER_OPTIONS: LedgerOptions = {
  chunkMicros: 1_000_000,
  leaseTtlMs: 30_000,
  flushMs: 20,
  flushRows: 500,
  allocationCheckMs: 1_000,
};

export interface LedgerDeps {
  readonly db: Kysely<GatewayDatabase>;
  readonly log: FastifyBaseLogger;
  readonly options?: Partial<LedgerOptions>;
}

export interface BudgetLedger extends Ledger {
  /** Releases pre-lease `reserved` rows older than `olderThanMs` (legacy-sweep.ts). */
  sweepStale(olderThanMs: number): Promise<number>;
  /** Closes other instances' leases that were not renewed in time (their instance died). */
  expireLeases(): Promise<number>;
  /** Commits every waiting ledger row now. */
  flush(): Promise<void>;
  /** Graceful shutdown: waits for open reservations (a few seconds at most), flushes, returns leases. */
  close(): Promise<void>;
  /** Every bucket with an allocation, as `balances` computes it, in one read (the metrics' scrape). */
  allBalances(): Promise<readonly ProjectBucketBalance[]>;
}

export interface ProjectBucketBalance {
  readonly projectSlug: string;
  readonly provider: ProviderId;
  readonly balance: BucketBalance;
}

interface AllocationRow {
  readonly provider: string;
  readonly allocated_micros: number;
  readonly spent_micros: number;
  readonly reserved_micros: number;
}

interface OpenReservation {
  readonly bucket: LocalBucket;
  readonly amount: number;
  readonly createdAt: string;
}

/**
 * The ledgers of this process, so that tests can wait until every request that ended has its
 * row committed (ledgersSettled in ledger/testing.ts); a ledger leaves it when it is closed.
 */
export const liveLedgers = new Set<{ settled(): boolean }>();

/** Shutdown waits at most this long (and at most one lease TTL) for open reservations to end. */
const CLOSE_WAIT_MS = 5_000;

/** A balance read is retried this often when a commit of this instance lands during it. */
const BALANCE_READS = 3;

/** A bucket that cannot cover a reservation (tryReserve answers undefined). */
class BucketDry extends Error {}

/**
 * Budget accounting without a database write per request. Each instance leases budget from a
 * bucket (local-buckets.ts, lease-store.ts: one atomic write per lease), reserves against its
 * lease in memory, and writes the usage ledger in group commits (group-commit.ts). Leases are
 * renewed every third of their TTL, idle ones returned after one TTL, and leases of dead
 * instances expired by whichever instance notices first. The bounds are in
 * docs/gateway/access.md ("Allocations and the ledger").
 */
export function createLedger(deps: LedgerDeps): BudgetLedger {
  const options = { ...DEFAULT_LEDGER_OPTIONS, ...deps.options };
  const { db, log } = deps;
  const instanceId = randomUUID();
  let version = 0;
  const changed = () => void version++;
  const store = leaseStore({ db, instanceId, ttlMs: options.leaseTtlMs, log });
  const buckets = localBuckets({ store, chunkMicros: options.chunkMicros, log, onChange: changed });
  const commits = groupCommit({ db, log, ...options, onCommitted: changed });
  const open = new Map<string, OpenReservation>();
  let sequence = 0;
  let closing = false;
  const clock = isoClock();

  async function tryReserve(input: Parameters<Ledger['reserve']>[0]): Promise<Reservation | undefined> {
    if (closing) throw new Error('the budget ledger is shut down');
    const { principal, provider } = input;
    const bucket = buckets.bucketOf(principal.projectId, provider);
    const wanted = wholeMicros(input.estimateMicros);
    let amount = buckets.tryAcquire(bucket, wanted);
    if (amount === undefined) {
      try {
        amount = await buckets.wait(bucket, wanted, () => new BucketDry());
      } catch (error) {
        if (error instanceof BucketDry) return undefined;
        throw error;
      }
    }
    const id = `${instanceId}:${++sequence}`;
    open.set(id, { bucket, amount, createdAt: clock.iso() });
    return { id, principal, provider, amountMicros: amount, session: input.session };
  }

  async function reserve(input: Parameters<Ledger['reserve']>[0]): Promise<Reservation> {
    const reservation = await tryReserve(input);
    if (reservation) return reservation;
    throw gatewayErrors.create('gateway_allocation_exhausted', {
      project: input.principal.projectSlug,
      buckets: [{ provider: input.provider }],
    });
  }

  function end(
    reservation: Reservation,
    status: Exclude<UsageStatus, 'reserved'>,
    cost: number,
    fields: {
      model?: string;
      promptTokens?: number;
      completionTokens?: number;
      meters?: Meters;
      reason?: string;
      activity?: AttemptActivity | undefined;
    },
  ): Promise<void> {
    const entry = open.get(reservation.id);
    if (!entry) {
      log.warn(
        { reservation: reservation.id, status },
        'settle or release of a reservation that is already closed',
      );
      return Promise.resolve();
    }
    open.delete(reservation.id);
    buckets.close(entry.bucket, entry.amount, cost);
    const { principal, provider } = reservation;
    const activity = fields.activity;
    return commits.add(entry.bucket, cost, [
      principal.tokenId,
      principal.userId,
      principal.projectId,
      provider,
      fields.model ?? null,
      fields.promptTokens ?? 0,
      fields.completionTokens ?? 0,
      metersJson(fields.meters),
      entry.amount,
      cost,
      status,
      fields.reason ?? null,
      entry.createdAt,
      clock.iso(),
      reservation.session ?? null,
      activity?.requestId ?? null,
      activity?.attempt ?? null,
      activity?.effort ?? null,
      activity?.tier ?? null,
      activity?.newRequest === false ? 0 : 1,
      wholeMs(activity?.latencyMs),
      wholeMs(activity?.firstTokenMs),
      activity?.outcome?.slice(0, 64) ?? null,
      activity?.httpStatus ?? null,
    ]);
  }

  /** Resolves when the row is committed. Never refused for budget reasons. */
  const settle = (reservation: Reservation, usage: UsageRecord) =>
    end(reservation, usage.status, wholeMicros(usage.costMicros), usage);

  const release = (reservation: Reservation, reason: string, model?: string, activity?: AttemptActivity) =>
    end(reservation, 'error', 0, {
      reason: reason.slice(0, 500),
      activity,
      ...(model === undefined ? {} : { model }),
    });

  const selectAllocations = (projectId: number) =>
    db
      .selectFrom('allocations')
      .select(['provider', 'allocated_micros', 'spent_micros', 'reserved_micros'])
      .where('project_id', '=', projectId)
      .execute();
  type AllocationRead = { readonly version: number; readonly rows: ReturnType<typeof selectAllocations> };
  const reads = new Map<number, AllocationRead>();

  /**
   * One read of a project's allocation rows at a time: a caller arriving while one is in flight
   * shares it (a burst of 402s of one project, each naming what its buckets have left, reads
   * once, not once each). The read carries the version it started at, so a commit of this
   * instance that lands during it is still seen (and read again) by every caller.
   */
  function readAllocations(projectId: number): AllocationRead {
    const current = reads.get(projectId);
    if (current) return current;
    const read = { version, rows: selectAllocations(projectId) };
    reads.set(projectId, read);
    const done = () => void reads.delete(projectId);
    read.rows.then(done, done);
    return read;
  }

  /**
   * The database's figures with this instance's own state folded in: its settled costs not yet
   * committed count as spent, and of its lease only the open reservations count as reserved,
   * so `remaining` is exactly what a request here can still reserve. Other instances' leases
   * count as reserved until they use or return them.
   */
  async function balances(projectId: number): Promise<Partial<Record<ProviderId, BucketBalance>>> {
    for (let attempt = 1; ; attempt++) {
      const read = readAllocations(projectId);
      const rows = await read.rows;
      if (read.version !== version && attempt < BALANCE_READS) continue;
      const result: Partial<Record<ProviderId, BucketBalance>> = {};
      for (const row of rows) result[row.provider as ProviderId] = balanceOf(projectId, row);
      return result;
    }
  }

  function balanceOf(projectId: number, row: AllocationRow): BucketBalance {
    // A bucket this instance never used has nothing of its own to fold in (and is not made).
    const local = buckets.peek(projectId, row.provider);
    const spent = Number(row.spent_micros) + (local?.pending ?? 0);
    const reserved = Number(row.reserved_micros) - (local?.held ?? 0) + (local?.reserved ?? 0);
    return {
      allocatedMicros: Number(row.allocated_micros),
      spentMicros: spent,
      reservedMicros: reserved,
      remainingMicros: Math.max(0, Number(row.allocated_micros) - spent - reserved),
    };
  }

  async function allBalances(): Promise<readonly ProjectBucketBalance[]> {
    const rows = await db
      .selectFrom('allocations')
      .innerJoin('projects', 'projects.id', 'allocations.project_id')
      .select(['project_id', 'slug', 'provider', 'allocated_micros', 'spent_micros', 'reserved_micros'])
      .orderBy('project_id')
      .execute();
    return rows.map((row) => ({
      projectSlug: row.slug,
      provider: row.provider as ProviderId,
      balance: balanceOf(row.project_id, row),
    }));
  }

  /** Gives back the leases `pick` chooses among those with nothing open or waiting. */
  async function giveBack(pick: (b: LocalBucket) => boolean): Promise<void> {
    for (const { bucket, leaseId } of buckets.detach(pick)) {
      await store.giveBack(bucket, leaseId).catch((error: unknown) => {
        // Not renewed any more, so it expires within one TTL and the amount returns then.
        log.warn({ err: error, lease: leaseId }, 'could not return a budget lease');
      });
      changed();
    }
  }

  async function maintain(): Promise<void> {
    await store.renew(buckets.leaseIds());
    const idleSince = Date.now() - options.leaseTtlMs;
    await giveBack((b) => b.lastUsedAt < idleSince);
    await store.expire();
  }

  /**
   * An allocation lowered below what is spent and leased (`allocations set`) leaves the bucket
   * with less than nothing: the unused part of this instance's lease goes back, so the change
   * reaches every instance within `allocationCheckMs` (one read per instance, not per request).
   * The same read tells a dry bucket (local-buckets.ts) that it has something to lease again:
   * a raised allocation, or a lease returned or expired anywhere, is leased within that time.
   */
  async function checkAllocations(): Promise<void> {
    const watched = buckets.all().filter((b) => b.leaseId !== undefined || b.dry);
    const rows = await store.unleased([...new Set(watched.map((b) => b.projectId))]);
    for (const row of rows) {
      buckets.refilled(row.projectId, row.provider, row.left);
      if (row.left >= 0) continue;
      const bucket = buckets.bucketOf(row.projectId, row.provider);
      const leaseId = bucket.leaseId;
      const amount = buckets.carve(bucket, -row.left);
      if (leaseId === undefined || amount === 0) continue;
      await store.shrink(bucket, leaseId, amount);
      changed();
    }
  }

  const every = (ms: number, work: () => Promise<void>) => {
    let running = false;
    const timer = setInterval(() => {
      // A run that outlasts the interval (a loaded database) is not joined by the next: two
      // allocation checks reading the same shortfall would each give it back.
      if (running) return;
      running = true;
      work()
        .catch((error: unknown) => log.warn({ err: error }, 'budget lease upkeep failed'))
        .finally(() => {
          running = false;
        });
    }, ms);
    timer.unref();
    return timer;
  };
  const probe = { settled: () => open.size === 0 && commits.idle() };
  liveLedgers.add(probe);
  const timers = [
    every(Math.max(50, Math.floor(options.leaseTtlMs / 3)), maintain),
    every(options.allocationCheckMs, checkAllocations),
  ];

  async function close(): Promise<void> {
    closing = true;
    liveLedgers.delete(probe);
    for (const timer of timers) clearInterval(timer);
    const deadline = Date.now() + Math.min(options.leaseTtlMs, CLOSE_WAIT_MS);
    while (open.size > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    try {
      await commits.flush();
    } catch (error) {
      const lost = commits.abandon(error);
      log.error({ err: error, rows: lost }, 'usage ledger rows lost at shutdown');
    }
    await giveBack(() => true);
    if (open.size > 0)
      log.warn(
        { open: open.size },
        'shut down with reservations still open; their leases expire after the TTL',
      );
  }

  return {
    reserve,
    tryReserve,
    settle,
    release,
    balances,
    allBalances,
    sweepStale: (olderThanMs) => sweepStaleReservations({ db, log }, olderThanMs),
    expireLeases: () => store.expire(),
    flush: () => commits.flush(),
    close,
  };
}
