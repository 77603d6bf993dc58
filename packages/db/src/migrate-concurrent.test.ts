/**
 * Kysely's migrator lists the tables of every schema on the server; parallel test files (or
 * other services) dropping their schemas meanwhile made it fail with "schema ... does not
 * exist" (seen in CI). Migrations must go through while other schemas come and go.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import type { Kysely } from 'kysely';
import pg from 'pg';
import { migrateToLatest } from './migrate.ts';
import { isolatedDatabase } from './testing.ts';

const url = process.env.TEST_DATABASE_URL;
const skip = url ? undefined : 'TEST_DATABASE_URL is not set: PostgreSQL tests skipped';

const migrations = {
  '0001_one': {
    async up(db: Kysely<unknown>) {
      await db.schema.createTable('one').addColumn('id', 'integer').execute();
    },
  },
};

test('migrations succeed while other schemas are created and dropped around them', { skip }, async () => {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  let churning = true;
  const churn = (async () => {
    while (churning) {
      const name = `churn_${randomBytes(4).toString('hex')}`;
      await admin.query(`create schema "${name}"`);
      await admin.query(`create table "${name}".t (id int, a text, b text, c text)`);
      await admin.query(`drop schema "${name}" cascade`);
    }
  })();
  try {
    for (let round = 0; round < 15; round++) {
      const isolated = await isolatedDatabase<unknown>('postgres');
      try {
        const outcome = await migrateToLatest(isolated.database.db, migrations);
        assert.deepEqual(outcome.applied, ['0001_one']);
      } finally {
        await isolated.drop();
      }
    }
  } finally {
    churning = false;
    await churn;
    await admin.end();
  }
});
