/**
 * The usage report is one indexed query on both engines: a caller's own spend (polled by
 * scripts through GET /v1/account/usage) reads usage_project_user_time, a project's report
 * (gatewayctl usage --by) an index led by the project; neither walks the whole ledger.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { migrateToLatest } from '@app/db';
import { type IsolatedDatabase, isolatedDatabase, testEngines } from '@app/db/testing.ts';
import { CompiledQuery, type Kysely, sql } from 'kysely';
import { gatewayMigrations } from '../db/migrations.ts';
import type { GatewayDatabase } from '../db/schema.ts';
import { type UsageFilter, type UsageGrouping, usageQuery } from './usage-report.ts';

const PERIOD = { since: '2026-01-01T00:00:00.000Z', until: '2026-02-01T00:00:00.000Z' };

for (const { engine, skip } of testEngines()) {
  describe(`the usage report's query plan on ${engine}`, { skip }, () => {
    let isolated: IsolatedDatabase<GatewayDatabase>;
    before(async () => {
      isolated = await isolatedDatabase<GatewayDatabase>(engine);
      await migrateToLatest(isolated.database.db, gatewayMigrations);
    });
    after(() => isolated.drop());

    /** The plan's text. PostgreSQL is told to avoid sequential scans: the table is empty here. */
    const plan = (filter: UsageFilter, groups: readonly UsageGrouping[]) =>
      isolated.database.db.connection().execute(async (db: Kysely<GatewayDatabase>) => {
        const query = usageQuery(db, filter, groups).compile();
        const prefix = engine === 'sqlite' ? 'explain query plan' : 'explain';
        if (engine === 'postgres') await sql`set enable_seqscan = off`.execute(db);
        try {
          const result = await db.executeQuery(
            CompiledQuery.raw(`${prefix} ${query.sql}`, [...query.parameters]),
          );
          return JSON.stringify(result.rows);
        } finally {
          if (engine === 'postgres') await sql`reset enable_seqscan`.execute(db);
        }
      });

    it("reads a caller's own spend through usage_project_user_time", async () => {
      const text = await plan({ projectId: 1, userId: 1, ...PERIOD }, ['day', 'model']);
      assert.match(text, /usage_project_user_time/, text);
      const current = await plan({ projectId: 1, userId: 1, tokenJti: 'x', ...PERIOD }, ['day', 'model']);
      assert.match(current, /usage_project_user_time/, current);
    });

    // The activity log's (project, user|token, time) indexes also lead with the project; on a
    // small table the planner may take any of them. What matters is that no plan walks the ledger.
    it("reads a project's report through an index led by the project", async () => {
      for (const groups of [['day'], ['user'], ['token'], ['model']] as const) {
        const text = await plan({ projectId: 1, ...PERIOD }, groups);
        assert.match(text, /usage_project_(time|user_time|token_time)/, `${groups.join()}: ${text}`);
      }
    });
  });
}
