import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { openNodeSqlite } from './node-sqlite.ts';

export type Engine = 'sqlite' | 'postgres';

export interface Database<DB> {
  readonly db: Kysely<DB>;
  readonly engine: Engine;
  /** Cheap round trip for readiness probes. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface OpenOptions {
  /** PostgreSQL schema to use (created if missing); tests use one per test for isolation. */
  readonly schema?: string;
  readonly poolSize?: number;
}

// int8 (COUNT, SUM, BIGINT ids, micro-dollar amounts) as JS numbers: exact up to 2^53, which
// every value this project stores stays well under.
pg.types.setTypeParser(20, (value) => Number(value));
pg.types.setTypeParser(1700, (value) => Number(value));

export function isPostgresUrl(url: string): boolean {
  return url.startsWith('postgres://') || url.startsWith('postgresql://');
}

/** `sqlite:./data/x.db`, `sqlite::memory:`, a bare file path, or a postgres:// URL. */
export async function openDatabase<DB>(url: string, options: OpenOptions = {}): Promise<Database<DB>> {
  if (isPostgresUrl(url)) return openPostgres<DB>(url, options);
  return openSqlite<DB>(url.replace(/^sqlite:/, ''));
}

function openSqlite<DB>(path: string): Database<DB> {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const { raw, database } = openNodeSqlite(path);
  // WAL lets readers run beside the single writer; busy_timeout waits instead of failing
  // when another connection (the CLI, a second instance) holds the write lock. synchronous =
  // NORMAL is SQLite's recommended setting for WAL: commits survive a crash of the process and
  // never corrupt the file, and only an OS crash or power loss can undo the last commits. FULL
  // would fsync on every commit, and node:sqlite is synchronous, so that wait blocks the whole
  // event loop on every ledger write (measured in bench/gateway).
  raw.exec(
    'PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;',
  );
  const db = new Kysely<DB>({ dialect: new SqliteDialect({ database }) });
  return {
    db,
    engine: 'sqlite',
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: () => db.destroy(),
  };
}

async function openPostgres<DB>(url: string, options: OpenOptions): Promise<Database<DB>> {
  const schema = options.schema;
  if (schema !== undefined && !/^[a-z_][a-z0-9_]*$/.test(schema))
    throw new Error(`invalid schema name ${schema}`);
  if (schema) {
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    try {
      await admin.query(`create schema if not exists "${schema}"`);
    } finally {
      await admin.end();
    }
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    ...(schema ? { options: `-c search_path="${schema}"` } : {}),
  });
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    engine: 'postgres',
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: () => db.destroy(),
  };
}
