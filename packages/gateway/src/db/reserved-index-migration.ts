import { type Kysely, type Migration, sql } from 'kysely';

/**
 * 0011_usage_reserved_index. `usage_status_time` indexed every ledger row by status for a single
 * reader: the sweep of the `reserved` rows that gateways before budget leases left behind
 * (leased gateways never write one, legacy-sweep.ts). Each group commit paid for an entry of
 * that index per row, and its pages in the WAL, for rows no query looks up by status. A partial
 * index of the reserved rows alone serves the sweep as before and costs a settled row nothing.
 */
export const usageReservedIndex: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.dropIndex('usage_status_time').execute();
    // Raw: a partial index's predicate is DDL, where neither engine takes a bound parameter.
    await sql`create index usage_reserved_time on usage (created_at) where status = 'reserved'`.execute(db);
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropIndex('usage_reserved_time').execute();
    await db.schema.createIndex('usage_status_time').on('usage').columns(['status', 'created_at']).execute();
  },
};
