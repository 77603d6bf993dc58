import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
import { Kysely, SqliteDialect, sql } from 'kysely';
import { nodeSqliteForKysely } from './node-sqlite.ts';

test('statements are prepared once per SQL text and reused', () => {
  const raw = new DatabaseSync(':memory:');
  let prepares = 0;
  const original = raw.prepare.bind(raw);
  raw.prepare = (text: string) => {
    prepares += 1;
    return original(text);
  };
  const database = nodeSqliteForKysely(raw);
  database.prepare('create table t (id integer primary key, v)').run([]);
  const insert = 'insert into t (v) values (?)';
  database.prepare(insert).run(['a']);
  database.prepare(insert).run([true]);
  const select = database.prepare('select v from t order by id');
  assert.equal(select.reader, true);
  assert.equal(database.prepare(insert).reader, false);
  assert.deepEqual(
    select.all([]).map((row) => ({ ...(row as object) })),
    [{ v: 'a' }, { v: 1 }],
  );
  assert.equal(prepares, 3);
  database.close();
});

test('a Kysely transaction takes the write lock at its start, so it waits its turn instead of failing', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'node-sqlite-'));
  const path = join(dir, 'db.sqlite');
  const raw = new DatabaseSync(path);
  raw.exec('PRAGMA journal_mode = WAL; create table t (v integer)');
  const other = new DatabaseSync(path);
  other.exec('PRAGMA busy_timeout = 0');
  const db = new Kysely<{ t: { v: number } }>({
    dialect: new SqliteDialect({ database: nodeSqliteForKysely(raw) }),
  });
  try {
    await db.transaction().execute(async (trx) => {
      await sql`select count(*) from t`.execute(trx);
      // With a deferred begin this write from another connection would succeed here, and the
      // transaction's own write below would then fail with SQLITE_BUSY_SNAPSHOT.
      assert.throws(() => other.exec('insert into t (v) values (2)'), /database is locked/);
      await trx.insertInto('t').values({ v: 1 }).execute();
    });
    other.exec('insert into t (v) values (2)');
    assert.deepEqual(
      other
        .prepare('select v from t order by v')
        .all()
        .map((row) => row.v),
      [1, 2],
    );
  } finally {
    await db.destroy();
    other.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
