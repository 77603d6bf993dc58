import assert from 'node:assert/strict';
import { test } from 'node:test';
import { migrateToLatest, openDatabase } from '@app/db';
import { energyMigrations } from '../db/migrations.ts';
import type { EnergyDatabase } from '../db/schema.ts';
import { prepared } from './prepared.ts';

test('a prepared query runs with new parameters each call, in placeholder order', async () => {
  const database = await openDatabase<EnergyDatabase>('sqlite::memory:');
  try {
    await migrateToLatest(database.db, energyMigrations);
    const db = database.db;
    const bySortOrderRange = prepared(
      db,
      db
        .selectFrom('roof_types')
        .select('service_name')
        .where('sort_order', '>=', 0)
        .where('sort_order', '<=', 0)
        .orderBy('sort_order'),
      2,
    );
    assert.deepEqual(
      (await bySortOrderRange(2, 3)).map((row) => row.service_name),
      ['built_up_metal_deck', 'built_up_wood_deck'],
    );
    assert.deepEqual(
      (await bySortOrderRange(5, 9)).map((row) => row.service_name),
      ['shingles_shakes'],
    );
    assert.deepEqual(await bySortOrderRange(9, 1), []);
  } finally {
    await database.close();
  }
});

test('a wrong parameter count is refused when the query is prepared', async () => {
  const database = await openDatabase<EnergyDatabase>('sqlite::memory:');
  try {
    const db = database.db;
    assert.throws(
      () => prepared(db, db.selectFrom('roof_types').selectAll().where('id', '=', 0), 2),
      /expects 2 parameters, compiled 1/,
    );
  } finally {
    await database.close();
  }
});
