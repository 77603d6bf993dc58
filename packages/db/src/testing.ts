import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { type Database, type Engine, openDatabase } from './database.ts';
import { createRedis, type Redis } from './redis.ts';

export interface TestEngine {
  readonly engine: Engine;
  /** Why this engine's tests are skipped, or undefined when it is available. */
  readonly skip: string | undefined;
}

/** The engines a database test runs on: SQLite always; PostgreSQL when TEST_DATABASE_URL is set. */
export function testEngines(): TestEngine[] {
  return [
    { engine: 'sqlite', skip: undefined },
    {
      engine: 'postgres',
      skip: process.env.TEST_DATABASE_URL
        ? undefined
        : 'TEST_DATABASE_URL is not set: PostgreSQL tests skipped',
    },
  ];
}

export interface IsolatedDatabase<DB> {
  readonly database: Database<DB>;
  /** The URL (and for PostgreSQL the schema) a second app instance opens to share this database. */
  readonly url: string;
  readonly schema: string | undefined;
  drop(): Promise<void>;
}

/**
 * A fresh database: a temp SQLite file, or a fresh PostgreSQL schema, dropped afterwards. The
 * schema goes through the same `schema` option of openDatabase that a service's configured
 * schema (`*_DATABASE_SCHEMA`, via openServiceDatabase) does.
 */
export async function isolatedDatabase<DB>(engine: Engine): Promise<IsolatedDatabase<DB>> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(join(tmpdir(), 'db-test-'));
    const url = `sqlite:${join(dir, 'test.db')}`;
    const database = await openDatabase<DB>(url);
    return {
      database,
      url,
      schema: undefined,
      drop: async () => {
        await database.close().catch(() => {});
        rmSync(dir, { recursive: true, force: true });
      },
    };
  }
  const url = process.env.TEST_DATABASE_URL;
  if (!url) throw new Error('TEST_DATABASE_URL is not set');
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const database = await openDatabase<DB>(url, { schema });
  return {
    database,
    url,
    schema,
    drop: async () => {
      await database.close().catch(() => {});
      await adminQuery(url, `drop schema if exists "${schema}" cascade`);
    },
  };
}

/** One statement on a connection of its own. */
async function adminQuery(url: string, statement: string): Promise<void> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    await client.query(statement);
  } finally {
    await client.end();
  }
}

/**
 * A whole fresh PostgreSQL database (on the server of TEST_DATABASE_URL), for tests of what
 * services do with a database of their own: its default schemas and its `public` schema are
 * shared by nobody else. Dropped afterwards, connections and all.
 */
export async function isolatedPostgresDatabase(): Promise<{ url: string; drop(): Promise<void> }> {
  const server = process.env.TEST_DATABASE_URL;
  if (!server) throw new Error('TEST_DATABASE_URL is not set');
  const name = `t_${randomBytes(6).toString('hex')}`;
  await adminQuery(server, `create database "${name}"`);
  const url = new URL(server);
  url.pathname = `/${name}`;
  return { url: url.href, drop: () => adminQuery(server, `drop database if exists "${name}" with (force)`) };
}

/** A Redis client with a unique key prefix, or undefined (with the reason) when TEST_REDIS_URL is unset. */
export function testRedis(): { redis: Redis; prefix: string; url: string } | { skip: string } {
  const url = process.env.TEST_REDIS_URL;
  if (!url) return { skip: 'TEST_REDIS_URL is not set: Redis tests skipped' };
  const prefix = `test:${randomBytes(6).toString('hex')}:`;
  return { redis: createRedis(url, { keyPrefix: prefix }), prefix, url };
}
