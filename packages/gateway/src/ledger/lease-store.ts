import type { FastifyBaseLogger } from 'fastify';
import { type Kysely, sql } from 'kysely';
import type { GatewayDatabase } from '../db/schema.ts';

type Db = Kysely<GatewayDatabase>;

export interface BucketKey {
  readonly projectId: number;
  readonly provider: string;
}

/** A lease grows by at most this share of what is left, so the last of a bucket goes in small pieces. */
export const LEASE_SHARE_OF_LEFT = 8;
/** A lease that lost a race for the last of a bucket reads the bucket again, this often. */
const LEASE_ATTEMPTS = 5;

class Raced extends Error {}

/**
 * How much to lease: what the waiting requests lack (`demand`), or more, up to the configured
 * chunk but never more than an eighth of what is left, and never more than is left.
 */
export function leaseAmount(demand: number, left: number, chunkMicros: number): number {
  if (left <= 0) return 0;
  const chunk = Math.min(chunkMicros, Math.floor(left / LEASE_SHARE_OF_LEFT));
  return Math.min(left, Math.max(demand, chunk));
}

const expiry = (ttlMs: number) => new Date(Date.now() + ttlMs).toISOString();

/**
 * The database side of budget leases. Every transaction here locks the lease row before the
 * allocation row (the flush in group-commit.ts too), so two of them never wait on each other
 * in a cycle. A lease's `amount_micros` is counted in `allocations.reserved_micros` while the
 * lease is open.
 */
export function leaseStore(deps: { db: Db; instanceId: string; ttlMs: number; log: FastifyBaseLogger }) {
  const { db, instanceId, ttlMs } = deps;

  /**
   * Moves `leaseAmount(demand, left, chunk)` from the bucket into this instance's lease (a new
   * one when `leaseId` is undefined or was closed meanwhile). The conditional UPDATE re-checks
   * what is left on the locked allocation row: a concurrent lease can make it miss (then the
   * bucket is read again), never overdraw it. Resolves 0 when nothing is left.
   */
  async function take(
    bucket: BucketKey,
    leaseId: number | undefined,
    demand: number,
    chunkMicros: number,
  ): Promise<{ amount: number; leaseId: number | undefined; lost: boolean }> {
    for (let attempt = 0; attempt < LEASE_ATTEMPTS; attempt++) {
      try {
        return await db.transaction().execute((trx) => tryTake(trx, bucket, leaseId, demand, chunkMicros));
      } catch (error) {
        if (!(error instanceof Raced)) throw error;
      }
    }
    return { amount: 0, leaseId, lost: false };
  }

  async function tryTake(
    trx: Db,
    bucket: BucketKey,
    leaseId: number | undefined,
    demand: number,
    chunkMicros: number,
  ) {
    const row = await trx
      .selectFrom('allocations')
      .select(sql<number>`allocated_micros - spent_micros - reserved_micros`.as('left'))
      .where('project_id', '=', bucket.projectId)
      .where('provider', '=', bucket.provider)
      .executeTakeFirst();
    const amount = leaseAmount(demand, Number(row?.left ?? 0), chunkMicros);
    if (amount <= 0) return { amount: 0, leaseId, lost: false };
    const now = new Date().toISOString();
    let id = leaseId;
    let lost = false;
    if (id !== undefined) {
      const grown = await trx
        .updateTable('budget_leases')
        .set({
          amount_micros: sql`amount_micros + ${amount}`,
          leased_micros: sql`leased_micros + ${amount}`,
          expires_at: expiry(ttlMs),
        })
        .where('id', '=', id)
        .where('closed_at', 'is', null)
        .executeTakeFirst();
      lost = grown.numUpdatedRows === 0n;
    }
    const result = await trx
      .updateTable('allocations')
      .set({ reserved_micros: sql`reserved_micros + ${amount}`, updated_at: now })
      .where('project_id', '=', bucket.projectId)
      .where('provider', '=', bucket.provider)
      .where(sql<boolean>`allocated_micros - spent_micros - reserved_micros >= ${amount}`)
      .executeTakeFirst();
    if (result.numUpdatedRows === 0n) throw new Raced();
    if (id === undefined || lost) id = await open(trx, bucket, amount, now);
    return { amount, leaseId: id, lost };
  }

  async function open(trx: Db, bucket: BucketKey, amount: number, now: string): Promise<number> {
    const row = await trx
      .insertInto('budget_leases')
      .values({
        instance_id: instanceId,
        project_id: bucket.projectId,
        provider: bucket.provider,
        amount_micros: amount,
        leased_micros: amount,
        created_at: now,
        expires_at: expiry(ttlMs),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return row.id;
  }

  /** Keeps this instance's open leases alive; one statement for all of them. */
  async function renew(leaseIds: readonly number[]): Promise<void> {
    if (leaseIds.length === 0) return;
    await db
      .updateTable('budget_leases')
      .set({ expires_at: expiry(ttlMs) })
      .where('id', 'in', leaseIds)
      .where('closed_at', 'is', null)
      .execute();
  }

  /**
   * Closes a lease and gives what it holds in the database back to the bucket (the caller has
   * nothing open or waiting on it). The row keeps that amount as the record of what came back.
   */
  async function giveBack(bucket: BucketKey, leaseId: number): Promise<void> {
    const now = new Date().toISOString();
    await db.transaction().execute(async (trx) => {
      const closed = await trx
        .updateTable('budget_leases')
        .set({ closed_at: now, closed_as: 'returned' })
        .where('id', '=', leaseId)
        .where('closed_at', 'is', null)
        .returning('amount_micros')
        .executeTakeFirst();
      if (closed) await release(trx, bucket, closed.amount_micros, now);
    });
  }

  /** Gives `amount` of an open lease back to the bucket; false when the lease is gone. */
  async function shrink(bucket: BucketKey, leaseId: number, amount: number): Promise<boolean> {
    const now = new Date().toISOString();
    return db.transaction().execute(async (trx) => {
      const shrunk = await trx
        .updateTable('budget_leases')
        .set({ amount_micros: sql`amount_micros - ${amount}` })
        .where('id', '=', leaseId)
        .where('closed_at', 'is', null)
        .executeTakeFirst();
      if (shrunk.numUpdatedRows === 0n) return false;
      await release(trx, bucket, amount, now);
      return true;
    });
  }

  async function release(trx: Db, bucket: BucketKey, amount: number, now: string): Promise<void> {
    await trx
      .updateTable('allocations')
      .set({ reserved_micros: sql`reserved_micros - ${amount}`, updated_at: now })
      .where('project_id', '=', bucket.projectId)
      .where('provider', '=', bucket.provider)
      .execute();
  }

  /** What each bucket has left beyond everything leased; negative once an allocation was lowered. */
  async function unleased(projectIds: readonly number[]) {
    if (projectIds.length === 0) return [];
    const rows = await db
      .selectFrom('allocations')
      .select([
        'project_id',
        'provider',
        sql<number>`allocated_micros - spent_micros - reserved_micros`.as('left'),
      ])
      .where('project_id', 'in', projectIds)
      .execute();
    return rows.map((row) => ({ projectId: row.project_id, provider: row.provider, left: Number(row.left) }));
  }

  /**
   * Closes every lease, of any instance, that was not renewed in time: its instance stopped
   * without returning it (a crash). What it held goes back to the bucket; the row keeps that
   * amount, the most usage the instance can have settled without it reaching the ledger.
   */
  async function expire(): Promise<number> {
    const now = new Date().toISOString();
    const stale = await db
      .selectFrom('budget_leases')
      .select(['id'])
      .where('closed_at', 'is', null)
      .where('expires_at', '<', now)
      .execute();
    let expired = 0;
    for (const { id } of stale) {
      const closed = await db.transaction().execute(async (trx) => {
        const lease = await trx
          .updateTable('budget_leases')
          .set({ closed_at: now, closed_as: 'expired' })
          .where('id', '=', id)
          .where('closed_at', 'is', null)
          .where('expires_at', '<', now)
          .returning(['instance_id', 'project_id', 'provider', 'amount_micros'])
          .executeTakeFirst();
        if (!lease) return undefined;
        await release(
          trx,
          { projectId: lease.project_id, provider: lease.provider },
          lease.amount_micros,
          now,
        );
        return lease;
      });
      if (!closed) continue;
      expired++;
      deps.log.warn(
        {
          lease: id,
          instance: closed.instance_id,
          projectId: closed.project_id,
          provider: closed.provider,
          unrecordedAtMostMicros: closed.amount_micros,
        },
        'budget lease expired (its instance stopped without returning it); its amount is back in the bucket',
      );
    }
    return expired;
  }

  return { take, renew, giveBack, shrink, unleased, expire };
}

export type LeaseStore = ReturnType<typeof leaseStore>;
