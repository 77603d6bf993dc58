/**
 * 0006_admin_keys on a database that already has an audit trail (SQLite rebuilds the table):
 * every entry survives with its id, new ids continue after them, `project_id` may be null and
 * still references a project when it is not.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { migrateToLatest } from '@app/db';
import { sql } from 'kysely';
import { type IsolatedDatabase, isolatedDatabase, testEngines } from '@app/db/testing.ts';
import { gatewayMigrations } from './migrations.ts';
import type { GatewayDatabase } from './schema.ts';

const before0006 = Object.fromEntries(Object.entries(gatewayMigrations).filter(([name]) => name < '0006'));

for (const { engine, skip } of testEngines())
  describe(`migration 0006_admin_keys (${engine})`, { skip }, () => {
    let isolated: IsolatedDatabase<GatewayDatabase>;
    before(async () => {
      isolated = await isolatedDatabase<GatewayDatabase>(engine);
      const db = isolated.database.db;
      await migrateToLatest(db, before0006);
      const now = new Date().toISOString();
      await db.insertInto('users').values({ email: 'u@example.com', is_admin: 0, created_at: now }).execute();
      const project = await db
        .insertInto('projects')
        .values({ slug: 'old', ip_allow: '[]', created_at: now })
        .returning('id')
        .executeTakeFirstOrThrow();
      // The table as 0004 made it: no actor_admin_key_id yet.
      for (const subject of ['first', 'second'])
        await sql`insert into audit_events (project_id, actor, action, subject, detail, created_at)
          values (${project.id}, 'gatewayctl', 'allocation.set', ${subject}, '', ${now})`.execute(db);
      await migrateToLatest(db, gatewayMigrations);
    });
    after(() => isolated.drop());

    it('keeps every entry and its id; new entries continue after them, with or without a project', async () => {
      const db = isolated.database.db;
      const kept = await db.selectFrom('audit_events').selectAll().orderBy('id').execute();
      assert.deepEqual(
        kept.map((row) => [Number(row.id), row.subject, row.actor_admin_key_id]),
        [
          [1, 'first', null],
          [2, 'second', null],
        ],
      );
      const key = await db
        .insertInto('admin_keys')
        .values({ key_hash: 'h', description: 'd', scopes: '["read"]', created_at: 'c', expires_at: 'e' })
        .returning('id')
        .executeTakeFirstOrThrow();
      const row = await db
        .insertInto('audit_events')
        .values({
          project_id: null,
          actor_user_id: null,
          actor_admin_key_id: key.id,
          actor: 'admin key 1 (d)',
          action: 'user.create',
          subject: 'u@example.com',
          detail: '',
          created_at: new Date().toISOString(),
        })
        .returning('id')
        .executeTakeFirstOrThrow();
      assert.equal(Number(row.id), 3);
    });

    it('still refuses an entry of a project that does not exist', async () => {
      const entry = {
        project_id: 999,
        actor_user_id: null,
        actor_admin_key_id: null,
        actor: 'x',
        action: 'project.create' as const,
        subject: 'x',
        detail: '',
        created_at: new Date().toISOString(),
      };
      await assert.rejects(
        isolated.database.db.insertInto('audit_events').values(entry).execute(),
        /foreign key/i,
      );
    });
  });
