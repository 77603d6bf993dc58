/**
 * 0008_usage_activity on a ledger written by the schema before it: old rows stay, read with the
 * new columns unknown (null, token counts 0), and new rows carry them.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { migrateToLatest } from '@app/db';
import { type Generated, sql } from 'kysely';
import { type IsolatedDatabase, isolatedDatabase, testEngines } from '@app/db/testing.ts';
import { gatewayMigrations } from './migrations.ts';
import type { GatewayDatabase, UsageTable } from './schema.ts';

/** The usage table as 0009 left it: the kind columns that 0010 turned into meters. */
type Usage0009 = Omit<UsageTable, 'meters' | 'new_request'> &
  Record<'cached_tokens' | 'cache_write_tokens' | 'reasoning_tokens', Generated<number>>;
type Database0009 = Omit<GatewayDatabase, 'usage'> & { usage: Usage0009 };

const before0008 = Object.fromEntries(Object.entries(gatewayMigrations).filter(([name]) => name < '0008'));
// Up to 0009 only: this test reads the kind columns 0010 turned into meters.
const upTo0009 = Object.fromEntries(Object.entries(gatewayMigrations).filter(([name]) => name < '0010'));
const NOW = '2026-11-28T10:00:00.000Z';

for (const { engine, skip } of testEngines())
  describe(`migration 0008_usage_activity (${engine})`, { skip }, () => {
    let isolated: IsolatedDatabase<Database0009>;
    before(async () => {
      isolated = await isolatedDatabase<Database0009>(engine);
      const db = isolated.database.db;
      await migrateToLatest(db, before0008);
      await db.insertInto('users').values({ email: 'u@example.com', is_admin: 0, created_at: NOW }).execute();
      await db.insertInto('projects').values({ slug: 'old', ip_allow: '[]', created_at: NOW }).execute();
      // A row as the ledger wrote it before 0008 (its columns only).
      await sql`insert into usage (token_jti, user_id, project_id, provider, model, prompt_tokens,
          completion_tokens, cached_tokens, reserved_micros, cost_micros, status, created_at, settled_at)
        values ('jti-old', 1, 1, 'cloud_b', 'm-1', 10, 20, 3, 500, 400, 'ok', ${NOW}, ${NOW})`.execute(db);
      await migrateToLatest(db, upTo0009);
    });
    after(() => isolated.drop());

    it('keeps the old row with the new columns unknown', async () => {
      const [row] = await isolated.database.db.selectFrom('usage').selectAll().execute();
      assert.ok(row);
      assert.equal(row.token_jti, 'jti-old');
      assert.equal(Number(row.cost_micros), 400);
      assert.deepEqual(
        [row.request_id, row.attempt, row.effort, row.tier, row.latency_ms, row.first_token_ms],
        [null, null, null, null, null, null],
      );
      assert.deepEqual([row.outcome, row.http_status], [null, null]);
      assert.deepEqual([Number(row.cache_write_tokens), Number(row.reasoning_tokens)], [0, 0]);
    });

    it('stores the new columns of a new row', async () => {
      const db = isolated.database.db;
      await db
        .insertInto('usage')
        .values({
          token_jti: 'jti-new',
          user_id: 1,
          project_id: 1,
          provider: 'cloud_b',
          model: 'm-1',
          reserved_micros: 10,
          status: 'error',
          created_at: NOW,
          request_id: 'req-1',
          attempt: 2,
          effort: 'high',
          tier: 'flex',
          cache_write_tokens: 7,
          reasoning_tokens: 9,
          latency_ms: 1234,
          first_token_ms: 56,
          outcome: 'rate_limited',
          http_status: 429,
        })
        .execute();
      const row = await db
        .selectFrom('usage')
        .select(['request_id', 'attempt', 'effort', 'tier', 'cache_write_tokens', 'reasoning_tokens'])
        .select(['latency_ms', 'first_token_ms', 'outcome', 'http_status'])
        .where('token_jti', '=', 'jti-new')
        .executeTakeFirstOrThrow();
      assert.deepEqual(
        Object.values(row).map((value) => (typeof value === 'bigint' ? Number(value) : value)),
        ['req-1', 2, 'high', 'flex', 7, 9, 1234, 56, 'rate_limited', 429],
      );
    });

    it('goes down again to the schema before it, keeping the rows', async () => {
      const db = isolated.database.db;
      await gatewayMigrations['0008_usage_activity']?.down?.(db);
      const rows = await sql<{ token_jti: string }>`select * from usage order by id`.execute(db);
      assert.deepEqual(
        rows.rows.map((row) => row.token_jti),
        ['jti-old', 'jti-new'],
      );
      assert.equal('request_id' in (rows.rows[0] ?? {}), false);
    });
  });
