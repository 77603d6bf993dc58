/**
 * Services sharing one database: each in its own schema with its own migration table, a
 * database (file or schema) of another service refused naming it, tables of a version before
 * per-service schemas kept where they are, and nothing created that `create: false` forbids.
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Generated, type Migration, sql } from 'kysely';
import { DatabaseMissingError, openDatabase } from './database.ts';
import { migrateToLatest } from './migrate.ts';
import { DatabaseOwnerError } from './ownership.ts';
import { idColumn } from './portable.ts';
import { openServiceDatabase, type ServiceSpec } from './service-database.ts';
import { isolatedPostgresDatabase, testEngines } from './testing.ts';

interface UsersDb {
  users: { id: Generated<number>; email: string };
}

/** A service with a `users` table of its own shape, like both real services. */
function service(name: string, first: string, extra: Record<string, Migration> = {}): ServiceSpec {
  return {
    service: name,
    urlSetting: `${name.toUpperCase()}_DATABASE_URL`,
    schemaSetting: `${name.toUpperCase()}_DATABASE_SCHEMA`,
    migrations: {
      [first]: {
        async up(db) {
          await db.schema
            .createTable('users')
            .addColumn('id', 'integer', idColumn(db))
            .addColumn('email', 'text', (c) => c.notNull())
            .addColumn(`${name}_only`, 'text')
            .execute();
        },
      },
      ...extra,
    },
  };
}

const alpha = service('alpha', '0001_access');
const beta = service('beta', '0001_schema');
const config = (url: string, spec: ServiceSpec, schema = spec.service) => ({
  databaseUrl: url,
  databaseSchema: schema,
});

async function addUser(
  spec: ServiceSpec,
  url: string,
  schema: string | undefined,
  email: string,
): Promise<string[]> {
  const database = await openServiceDatabase<UsersDb>(spec, config(url, spec, schema));
  try {
    await database.db.insertInto('users').values({ email }).execute();
    const rows = await database.db.selectFrom('users').select('email').orderBy('id').execute();
    return rows.map((row) => row.email);
  } finally {
    await database.close();
  }
}

const postgres = testEngines()[1]?.skip;

describe('two services on one PostgreSQL database', { skip: postgres }, () => {
  let url = '';
  let drop = async () => {};
  before(async () => ({ url, drop } = await isolatedPostgresDatabase()));
  after(() => drop());

  it('migrates each into its own schema with its own migration table; both users tables coexist', async () => {
    assert.deepEqual(await addUser(alpha, url, undefined, 'a@example.com'), ['a@example.com']);
    assert.deepEqual(await addUser(beta, url, undefined, 'b@example.com'), ['b@example.com']);
    assert.deepEqual(await addUser(alpha, url, undefined, 'a2@example.com'), [
      'a@example.com',
      'a2@example.com',
    ]);
    const probe = await openDatabase<unknown>(url);
    try {
      const { rows } = await sql<{ schema: string; name: string }>`
        select table_schema as schema, table_name as name from information_schema.tables
        where table_name in ('users', 'kysely_migration', 'database_owner') order by 1, 2`.execute(probe.db);
      assert.deepEqual(
        rows.map((row) => `${row.schema}.${row.name}`),
        [
          'alpha.database_owner',
          'alpha.kysely_migration',
          'alpha.users',
          'beta.database_owner',
          'beta.kysely_migration',
          'beta.users',
        ],
      );
    } finally {
      await probe.close();
    }
  });

  it("refuses a service pointed at the other's schema, naming the owner and the schema", async () => {
    await assert.rejects(addUser(alpha, url, 'beta', 'x@example.com'), (error: Error) => {
      assert.ok(error instanceof DatabaseOwnerError);
      assert.match(
        error.message,
        /, schema beta belongs to the beta service; the alpha service needs its own/,
      );
      assert.match(error.message, /ALPHA_DATABASE_URL, ALPHA_DATABASE_SCHEMA/);
      return true;
    });
  });

  it('says where the data is without the password', async () => {
    const withPassword = new URL(url);
    withPassword.username = 'postgres';
    withPassword.password = 's3cret';
    const database = await openServiceDatabase(alpha, config(withPassword.href, alpha));
    try {
      assert.equal(database.label, `postgres://${withPassword.host}${withPassword.pathname}, schema alpha`);
    } finally {
      await database.close();
    }
  });
});

describe('a PostgreSQL database migrated before per-service schemas', { skip: postgres }, () => {
  let url = '';
  let drop = async () => {};
  before(async () => {
    ({ url, drop } = await isolatedPostgresDatabase());
    // What an earlier version did: alpha's tables in public, no owner recorded.
    const legacy = await openDatabase<UsersDb>(url);
    try {
      await migrateToLatest(legacy.db, alpha.migrations);
      await legacy.db.insertInto('users').values({ email: 'old@example.com' }).execute();
    } finally {
      await legacy.close();
    }
  });
  after(() => drop());

  it('refuses another service pointed at those tables, listing the migrations it does not know', async () => {
    await assert.rejects(addUser(beta, url, 'public', 'b@example.com'), (error: Error) => {
      assert.ok(error instanceof DatabaseOwnerError);
      assert.match(
        error.message,
        /, schema public holds another application's tables \(its migrations 0001_access are not the beta service's\)/,
      );
      return true;
    });
  });

  it('keeps the service on its tables in public under the default schema, and says so', async () => {
    const database = await openServiceDatabase<UsersDb>(alpha, config(url, alpha));
    try {
      assert.equal(database.schema, 'public');
      assert.match(
        database.legacyNotice ?? '',
        /alpha service's tables are in schema public.*ALPHA_DATABASE_SCHEMA=public/,
      );
      assert.deepEqual(await database.db.selectFrom('users').select('email').execute(), [
        { email: 'old@example.com' },
      ]);
    } finally {
      await database.close();
    }
    assert.deepEqual(await addUser(alpha, url, 'public', 'new@example.com'), [
      'old@example.com',
      'new@example.com',
    ]);
  });

  it('gives the other service its own schema, and now names the owner of public', async () => {
    assert.deepEqual(await addUser(beta, url, undefined, 'b@example.com'), ['b@example.com']);
    await assert.rejects(
      addUser(beta, url, 'public', 'b@example.com'),
      /schema public belongs to the alpha service/,
    );
  });
});

for (const { engine, skip } of testEngines()) {
  describe(`service databases on ${engine}`, { skip }, () => {
    let url = '';
    let cleanup = async () => {};
    /** A database of its own: a schema of the test database on PostgreSQL, a file on SQLite. */
    const at = (name: string): [string, string] =>
      engine === 'sqlite' ? [url.replace('shared.db', `${name}.db`), name] : [url, name];
    before(async () => {
      if (engine === 'postgres') ({ url, drop: cleanup } = await isolatedPostgresDatabase());
      else {
        const dir = mkdtempSync(join(tmpdir(), 'service-db-'));
        url = `sqlite:${join(dir, 'shared.db')}`;
        cleanup = async () => rmSync(dir, { recursive: true, force: true });
      }
    });
    after(() => cleanup());

    it('claims a fresh database for the first service; two claiming at once leave exactly one owner', async () => {
      const results = await Promise.allSettled([
        addUser(alpha, ...at('shared'), 'a@example.com'),
        addUser(beta, ...at('shared'), 'b@example.com'),
      ]);
      const refused = results.filter((result) => result.status === 'rejected');
      assert.equal(refused.length, 1, JSON.stringify(results));
      const reason = (refused[0] as PromiseRejectedResult).reason as Error;
      assert.ok(reason instanceof DatabaseOwnerError, String(reason));
      assert.match(reason.message, /belongs to the (alpha|beta) service/);
    });

    it('refuses a newer version of its own migrations by name, not as "corrupted migrations"', async () => {
      await addUser(alpha, ...at('newer'), 'c@example.com');
      const older = { ...alpha, migrations: {} };
      await assert.rejects(
        addUser(older, ...at('newer'), 'd@example.com'),
        /migrated by a newer version of the alpha service \(migrations 0001_access are unknown to this one\)/,
      );
    });

    it('without create, refuses a database the service never set up and creates nothing', async () => {
      const [absent, schema] = at('absent');
      await assert.rejects(
        openServiceDatabase(alpha, config(absent, alpha, schema), { create: false }),
        (error: Error) => {
          assert.ok(error instanceof DatabaseMissingError, String(error));
          assert.match(
            error.message,
            /^no database at .*absent.*; set ALPHA_DATABASE_URL \(and ALPHA_DATABASE_SCHEMA\)/,
          );
          return true;
        },
      );
      const probe = await openDatabase<unknown>(engine === 'sqlite' ? 'sqlite::memory:' : url);
      try {
        if (engine === 'sqlite')
          assert.equal(existsSync(absent.slice('sqlite:'.length)), false, 'no file created');
        else {
          const { rows } = await sql`select 1 from pg_namespace where nspname = ${schema}`.execute(probe.db);
          assert.equal(rows.length, 0, 'no schema created');
        }
      } finally {
        await probe.close();
      }
    });

    it("without create, refuses a database that exists but holds none of the service's tables", async () => {
      const [empty, schema] = at('empty');
      await (await openDatabase(empty, { schema })).close();
      await assert.rejects(
        openServiceDatabase(alpha, config(empty, alpha, schema), { create: false }),
        /no database at .*empty.* \(it holds none of the alpha service's tables\)/,
      );
      await addUser(alpha, empty, schema, 'e@example.com');
      const again = await openServiceDatabase(alpha, config(empty, alpha, schema), { create: false });
      await again.close();
    });
  });
}
