import type { FastifyBaseLogger } from 'fastify';
import { type Kysely, sql } from 'kysely';
import type { GatewayDatabase } from '../db/schema.ts';

/**
 * Releases `reserved` usage rows older than `olderThanMs`. Gateways before budget leases wrote a
 * row per reservation and charged it to `allocations.reserved_micros`; one that crashed (or was
 * replaced by this version) while requests were in flight left such rows behind, and without
 * this the bucket would stay blocked by money nobody is spending. Leased gateways write no
 * `reserved` rows: their crashes are handled by lease expiry.
 */
export async function sweepStaleReservations(
  deps: { db: Kysely<GatewayDatabase>; log: FastifyBaseLogger },
  olderThanMs: number,
): Promise<number> {
  const cutoff = new Date(Date.now() - olderThanMs).toISOString();
  const stale = await deps.db
    .selectFrom('usage')
    .select(['id', 'project_id', 'provider'])
    // A literal, not a parameter: the planner may then use the partial index of reserved rows.
    .where('status', '=', sql.lit('reserved'))
    .where('created_at', '<', cutoff)
    .execute();
  let released = 0;
  for (const row of stale) {
    const now = new Date().toISOString();
    const done = await deps.db.transaction().execute(async (trx) => {
      const closed = await trx
        .updateTable('usage')
        .set({
          status: 'error',
          cost_micros: 0,
          reason: 'reservation expired: never settled',
          settled_at: now,
        })
        .where('id', '=', row.id)
        .where('status', '=', 'reserved')
        .returning('reserved_micros')
        .executeTakeFirst();
      if (!closed) return false;
      await trx
        .updateTable('allocations')
        .set({ reserved_micros: sql`reserved_micros - ${closed.reserved_micros}`, updated_at: now })
        .where('project_id', '=', row.project_id)
        .where('provider', '=', row.provider)
        .execute();
      return true;
    });
    if (done) released++;
  }
  if (released > 0) deps.log.warn({ released }, 'released stale budget reservations');
  return released;
}
