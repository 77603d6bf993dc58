/**
 * 0011_usage_reserved_index: the ledger's rows carry no index by status any more, only a partial
 * one of the legacy `reserved` rows, which the stale-reservation sweep reads; down restores it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { migrateToLatest } from '@app/db';
import { type IsolatedDatabase, isolatedDatabase, testEngines } from '@app/db/testing.ts';
import { type Kysely, sql } from 'kysely';
import pino from 'pino';
import { sweepStaleReservations } from '../ledger/legacy-sweep.ts';
import { gatewayMigrations } from './migrations.ts';
import type { GatewayDatabase } from './schema.ts';

const NOW = '2026-11-28T10:00:00.000Z';
const OLD = '2026-11-27T10:00:00.000Z';
const SWEEP = `select id from usage where status = 'reserved' and created_at < '${NOW}'`;

for (const { engine, skip } of testEngines())
  describe(`migration 0011_usage_reserved_index (${engine})`, { skip }, () => {
    let isolated: IsolatedDatabase<GatewayDatabase>;
    const db = () => isolated.database.db;

    /** The usage table's indexes, name -> definition (lower case). */
    async function indexes(): Promise<Map<string, string>> {
      const rows =
        engine === 'sqlite'
          ? await sql<{ name: string; definition: string | null }>`select name, sql as definition
              from sqlite_master where type = 'index' and tbl_name = 'usage'`.execute(db())
          : await sql<{ name: string; definition: string }>`select indexname as name, indexdef as definition
              from pg_indexes where tablename = 'usage' and schemaname = current_schema()`.execute(db());
      return new Map(rows.rows.map((row) => [row.name, (row.definition ?? '').toLowerCase()]));
    }

    /** The plan of the sweep's query, as one lower-case text. */
    async function sweepPlan(): Promise<string> {
      if (engine === 'sqlite') {
        const plan = await sql<{ detail: string }>`explain query plan ${sql.raw(SWEEP)}`.execute(db());
        return plan.rows.map((row) => row.detail).join('\n');
      }
      // A handful of rows: without this, a sequential scan is cheaper than any index.
      return db()
        .transaction()
        .execute(async (trx) => {
          await sql`set local enable_seqscan = off`.execute(trx);
          const plan = await sql<{ 'QUERY PLAN': string }>`explain ${sql.raw(SWEEP)}`.execute(trx);
          return plan.rows.map((row) => row['QUERY PLAN']).join('\n');
        });
    }

    before(async () => {
      isolated = await isolatedDatabase<GatewayDatabase>(engine);
      await migrateToLatest(db(), gatewayMigrations);
      await db()
        .insertInto('users')
        .values({ email: 'u@example.com', is_admin: 0, created_at: NOW })
        .execute();
      await db().insertInto('projects').values({ slug: 'p', ip_allow: '[]', created_at: NOW }).execute();
      await db()
        .insertInto('allocations')
        .values({
          project_id: 1,
          provider: 'cloud_b',
          allocated_micros: 1_000,
          spent_micros: 0,
          reserved_micros: 500,
          updated_at: OLD,
        })
        .execute();
      const row = {
        token_jti: 'jti',
        user_id: 1,
        project_id: 1,
        provider: 'cloud_b',
        model: 'm',
        reserved_micros: 500,
      };
      await db()
        .insertInto('usage')
        .values([
          { ...row, status: 'reserved', created_at: OLD, cost_micros: 0 },
          { ...row, status: 'ok', created_at: OLD, cost_micros: 300, settled_at: OLD },
        ])
        .execute();
    });
    after(() => isolated.drop());

    it('indexes only the reserved rows by status, and the sweep reads that index', async () => {
      const found = await indexes();
      assert.equal(found.has('usage_status_time'), false);
      assert.match(found.get('usage_reserved_time') ?? '', /where.*status.*=.*'reserved'/);
      assert.match(await sweepPlan(), /usage_reserved_time/);
    });

    it('the sweep still releases a legacy reservation, and only that row', async () => {
      assert.equal(await sweepStaleReservations({ db: db(), log: pino({ level: 'silent' }) }, 60_000), 1);
      const rows = await db().selectFrom('usage').select(['status', 'cost_micros']).orderBy('id').execute();
      assert.deepEqual(
        rows.map((r) => [r.status, Number(r.cost_micros)]),
        [
          ['error', 0],
          ['ok', 300],
        ],
      );
      const bucket = await db().selectFrom('allocations').select('reserved_micros').executeTakeFirstOrThrow();
      assert.equal(Number(bucket.reserved_micros), 0);
    });

    it('goes down to the full status index and up again', async () => {
      const migration = gatewayMigrations['0011_usage_reserved_index'];
      await migration?.down?.(db() as Kysely<unknown>);
      let found = await indexes();
      assert.equal(found.has('usage_reserved_time'), false);
      assert.ok(found.has('usage_status_time'));
      await migration?.up(db() as Kysely<unknown>);
      found = await indexes();
      assert.deepEqual([found.has('usage_status_time'), found.has('usage_reserved_time')], [false, true]);
    });
  });
