import assert from 'node:assert/strict';
import { DatabaseSync } from 'node:sqlite';
import { test } from 'node:test';
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
