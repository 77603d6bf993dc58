import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type Generated, type Migration, sql } from 'kysely';
import { migrateToLatest } from './migrate.ts';
import { idColumn } from './portable.ts';
import { isolatedDatabase, testEngines } from './testing.ts';

interface TestDb {
  widget: { id: Generated<number>; name: string; active: number; price_micros: number; created_at: string };
}

const migrations: Record<string, Migration> = {
  '0001_widgets': {
    async up(db) {
      await db.schema
        .createTable('widget')
        .addColumn('id', 'integer', idColumn(db))
        .addColumn('name', 'text', (c) => c.notNull().unique())
        .addColumn('active', 'integer', (c) => c.notNull().defaultTo(1))
        .addColumn('created_at', 'text', (c) => c.notNull())
        .execute();
    },
  },
  '0002_price': {
    async up(db) {
      await db.schema
        .alterTable('widget')
        .addColumn('price_micros', 'bigint', (c) => c.notNull().defaultTo(0))
        .execute();
    },
  },
};

for (const { engine, skip } of testEngines()) {
  describe(`database on ${engine}`, { skip }, () => {
    it('runs pending migrations once, in order, and records them', async () => {
      const isolated = await isolatedDatabase<TestDb>(engine);
      try {
        const first = await migrateToLatest(isolated.database.db, migrations);
        assert.deepEqual(first.applied, ['0001_widgets', '0002_price']);
        const second = await migrateToLatest(isolated.database.db, migrations);
        assert.deepEqual(second.applied, []);
        const later = await migrateToLatest(isolated.database.db, {
          ...migrations,
          '0003_index': {
            async up(db) {
              await db.schema.createIndex('widget_active').on('widget').column('active').execute();
            },
          },
        });
        assert.deepEqual(later.applied, ['0003_index']);
      } finally {
        await isolated.drop();
      }
    });

    it('round-trips rows, booleans as integers and big money amounts as numbers', async () => {
      const isolated = await isolatedDatabase<TestDb>(engine);
      try {
        const { db } = isolated.database;
        await migrateToLatest(db, migrations);
        const inserted = await db
          .insertInto('widget')
          .values({
            name: 'fan',
            active: 0,
            price_micros: 9_007_199_254_740,
            created_at: '2026-11-22T10:00:00.000Z',
          })
          .returning(['id'])
          .executeTakeFirstOrThrow();
        const row = await db
          .selectFrom('widget')
          .selectAll()
          .where('id', '=', inserted.id)
          .executeTakeFirstOrThrow();
        assert.equal(typeof row.id, 'number');
        assert.equal(row.price_micros, 9_007_199_254_740);
        assert.equal(row.active, 0);
        const counted = await db
          .selectFrom('widget')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow();
        assert.equal(Number(counted.n), 1);
        await assert.rejects(
          db
            .insertInto('widget')
            .values({ name: 'fan', created_at: 'x', price_micros: 0, active: 1 })
            .execute(),
          'unique constraint enforced',
        );
        await isolated.database.ping();
      } finally {
        await isolated.drop();
      }
    });

    it('names the failing migration', async () => {
      const isolated = await isolatedDatabase<TestDb>(engine);
      try {
        await assert.rejects(
          migrateToLatest(isolated.database.db, {
            '0001_broken': {
              async up(db) {
                await sql`create tabel nonsense`.execute(db);
              },
            },
          }),
          /migration 0001_broken failed/,
        );
      } finally {
        await isolated.drop();
      }
    });
  });
}

describe('sqlite file database', () => {
  it('uses WAL journaling with synchronous NORMAL and enforces foreign keys', async () => {
    const isolated = await isolatedDatabase<TestDb>('sqlite');
    try {
      const { db } = isolated.database;
      const journal = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(db);
      assert.equal(journal.rows[0]?.journal_mode, 'wal');
      const fk = await sql<{ foreign_keys: number }>`pragma foreign_keys`.execute(db);
      assert.equal(fk.rows[0]?.foreign_keys, 1);
      const synchronous = await sql<{ synchronous: number }>`pragma synchronous`.execute(db);
      assert.equal(synchronous.rows[0]?.synchronous, 1, 'NORMAL');
    } finally {
      await isolated.drop();
    }
  });
});
