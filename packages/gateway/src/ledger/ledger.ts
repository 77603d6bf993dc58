import type { FastifyBaseLogger } from 'fastify';
import { type Kysely, sql } from 'kysely';
import type { BucketBalance, Ledger, Micros, ProviderId, Reservation, UsageRecord } from '../contracts.ts';
import type { GatewayDatabase, UsageStatus } from '../db/schema.ts';
import { gatewayErrors } from '../errors.ts';

export interface LedgerDeps {
  readonly db: Kysely<GatewayDatabase>;
  readonly log: FastifyBaseLogger;
}

/** A reservation that lost a race for the last of a bucket reads the bucket again, this often. */
const RESERVE_ATTEMPTS = 5;

function wholeMicros(amount: Micros): number {
  return Number.isFinite(amount) && amount > 0 ? Math.ceil(amount) : 0;
}

/**
 * Budget accounting. A reservation is one conditional UPDATE: the database applies it only
 * while `allocated - spent - reserved` covers the amount, so concurrent requests on any
 * number of instances can never reserve more than the allocation (row lock on PostgreSQL, the
 * single writer on SQLite). Each request's ledger row is written with the reservation (status
 * `reserved`) and completed by settle/release, which only act on a row still `reserved`: a
 * double settle or a settle after the stale sweep moves no money twice.
 */
export function createLedger(
  deps: LedgerDeps,
): Ledger & { sweepStale(olderThanMs: number): Promise<number> } {
  const { db } = deps;

  /**
   * Reserves the estimate, or what is left of the bucket when the estimate (a worst case: the
   * request's whole output allowance) is larger: a bucket with money left always lets one
   * request through, and the settle that follows charges the real cost. The UPDATE re-checks
   * the remaining budget on the locked row, so a concurrent reservation can only make it miss
   * (then the remaining budget is read again), never overspend.
   */
  async function reserve(input: Parameters<Ledger['reserve']>[0]): Promise<Reservation> {
    const wanted = wholeMicros(input.estimateMicros);
    const { principal, provider } = input;
    for (let attempt = 0; attempt < RESERVE_ATTEMPTS; attempt++) {
      const outcome = await db.transaction().execute((trx) => tryReserve(trx, principal, provider, wanted));
      if (outcome === 'exhausted') break;
      if (outcome !== 'raced')
        return { id: String(outcome.id), principal, provider, amountMicros: outcome.amount };
    }
    throw gatewayErrors.create('gateway_allocation_exhausted', { project: principal.projectSlug, provider });
  }

  async function tryReserve(
    trx: Kysely<GatewayDatabase>,
    principal: Reservation['principal'],
    provider: ProviderId,
    wanted: Micros,
  ): Promise<{ id: number; amount: Micros } | 'exhausted' | 'raced'> {
    const bucket = await trx
      .selectFrom('allocations')
      .select(sql<number>`allocated_micros - spent_micros - reserved_micros`.as('remaining'))
      .where('project_id', '=', principal.projectId)
      .where('provider', '=', provider)
      .executeTakeFirst();
    const remaining = Number(bucket?.remaining ?? 0);
    if (remaining <= 0) return 'exhausted';
    const amount = Math.min(wanted, remaining);
    const now = new Date().toISOString();
    const result = await trx
      .updateTable('allocations')
      .set({ reserved_micros: sql`reserved_micros + ${amount}`, updated_at: now })
      .where('project_id', '=', principal.projectId)
      .where('provider', '=', provider)
      .where(sql<boolean>`allocated_micros - spent_micros - reserved_micros >= ${amount}`)
      .where(sql<boolean>`allocated_micros - spent_micros - reserved_micros > 0`)
      .executeTakeFirst();
    if (result.numUpdatedRows === 0n) return 'raced';
    const row = await trx
      .insertInto('usage')
      .values({
        token_jti: principal.tokenId,
        user_id: principal.userId,
        project_id: principal.projectId,
        provider,
        reserved_micros: amount,
        status: 'reserved',
        created_at: now,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return { id: row.id, amount };
  }

  /** Closes a `reserved` row and moves the reservation to `spent + cost`; false if already closed. */
  async function close(
    target: { readonly id: number; readonly projectId: number; readonly provider: string },
    status: Exclude<UsageStatus, 'reserved'>,
    fields: {
      model?: string;
      promptTokens?: number;
      completionTokens?: number;
      cachedTokens?: number;
      cost: number;
      reason?: string;
    },
  ): Promise<boolean> {
    const now = new Date().toISOString();
    return db.transaction().execute(async (trx) => {
      const closed = await trx
        .updateTable('usage')
        .set({
          status,
          model: fields.model ?? null,
          prompt_tokens: fields.promptTokens ?? 0,
          completion_tokens: fields.completionTokens ?? 0,
          cached_tokens: fields.cachedTokens ?? 0,
          cost_micros: fields.cost,
          reason: fields.reason ?? null,
          settled_at: now,
        })
        .where('id', '=', target.id)
        .where('status', '=', 'reserved')
        .returning('reserved_micros')
        .executeTakeFirst();
      if (!closed) return false;
      // No budget condition here: a settle is never refused, even when the real cost
      // exceeds what is left; the overshoot is bounded by the gap between estimate and cost.
      await trx
        .updateTable('allocations')
        .set({
          reserved_micros: sql`reserved_micros - ${closed.reserved_micros}`,
          spent_micros: sql`spent_micros + ${fields.cost}`,
          updated_at: now,
        })
        .where('project_id', '=', target.projectId)
        .where('provider', '=', target.provider)
        .execute();
      return true;
    });
  }

  const targetOf = (reservation: Reservation) => ({
    id: Number(reservation.id),
    projectId: reservation.principal.projectId,
    provider: reservation.provider,
  });

  async function settle(reservation: Reservation, usage: UsageRecord): Promise<void> {
    const done = await close(targetOf(reservation), usage.status, {
      model: usage.model,
      promptTokens: usage.promptTokens,
      completionTokens: usage.completionTokens,
      cachedTokens: usage.cachedTokens,
      cost: wholeMicros(usage.costMicros),
    });
    if (!done)
      deps.log.warn({ reservation: reservation.id }, 'settle of a reservation that is already closed');
  }

  async function release(reservation: Reservation, reason: string): Promise<void> {
    const done = await close(targetOf(reservation), 'error', { cost: 0, reason: reason.slice(0, 500) });
    if (!done)
      deps.log.warn({ reservation: reservation.id }, 'release of a reservation that is already closed');
  }

  async function balances(projectId: number): Promise<Partial<Record<ProviderId, BucketBalance>>> {
    const rows = await db
      .selectFrom('allocations')
      .select(['provider', 'allocated_micros', 'spent_micros', 'reserved_micros'])
      .where('project_id', '=', projectId)
      .execute();
    const result: Partial<Record<ProviderId, BucketBalance>> = {};
    for (const row of rows) {
      const remaining = row.allocated_micros - row.spent_micros - row.reserved_micros;
      result[row.provider as ProviderId] = {
        allocatedMicros: row.allocated_micros,
        spentMicros: row.spent_micros,
        reservedMicros: row.reserved_micros,
        remainingMicros: Math.max(0, remaining),
      };
    }
    return result;
  }

  /**
   * Releases reservations older than `olderThanMs`: their instance stopped before settling
   * (a crash), and without this the bucket would stay blocked by money nobody is spending.
   */
  async function sweepStale(olderThanMs: number): Promise<number> {
    const cutoff = new Date(Date.now() - olderThanMs).toISOString();
    const stale = await db
      .selectFrom('usage')
      .select(['id', 'project_id', 'provider'])
      .where('status', '=', 'reserved')
      .where('created_at', '<', cutoff)
      .execute();
    let released = 0;
    for (const row of stale) {
      const target = { id: row.id, projectId: row.project_id, provider: row.provider };
      if (await close(target, 'error', { cost: 0, reason: 'reservation expired: never settled' })) released++;
    }
    if (released > 0) deps.log.warn({ released }, 'released stale budget reservations');
    return released;
  }

  return { reserve, settle, release, balances, sweepStale };
}
