import { existsSync, mkdirSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { openNodeSqlite } from './node-sqlite.ts';

export type Engine = 'sqlite' | 'postgres';

export interface Database<DB> {
  readonly db: Kysely<DB>;
  readonly engine: Engine;
  /** True when this open created a new, empty SQLite file (callers say so: see gatewayctl). */
  readonly created: boolean;
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

/**
 * The only database URLs accepted (by the config schemas, as a pattern, and by openDatabase):
 * anything else, such as `mysql://x`, would otherwise become a SQLite file of that name.
 */
export const DATABASE_URL_PATTERN = '^(sqlite:.+|postgres(ql)?://.+)$';
export const DATABASE_URL_FORMS =
  'sqlite:<path> (embedded; sqlite::memory: for a throwaway one) or postgres://user:password@host:5432/db (postgresql:// too)';

export type DatabaseLocation =
  | { readonly engine: 'sqlite'; readonly path: string }
  | { readonly engine: 'postgres'; readonly url: string };

export class DatabaseUrlError extends Error {
  constructor() {
    // The URL itself is not repeated: it may carry a password.
    super(`unsupported database URL: accepted forms are ${DATABASE_URL_FORMS}`);
    this.name = 'DatabaseUrlError';
  }
}

export function parseDatabaseUrl(url: string): DatabaseLocation {
  if (!new RegExp(DATABASE_URL_PATTERN).test(url)) throw new DatabaseUrlError();
  if (isPostgresUrl(url)) return { engine: 'postgres', url };
  return { engine: 'sqlite', path: url.slice('sqlite:'.length) };
}

/**
 * A relative SQLite path made absolute from `baseDir` (the project directory), so every command
 * that reads the configuration finds the same file wherever it is run from.
 */
export function anchorDatabaseUrl(url: string, baseDir: string): string {
  const location = parseDatabaseUrl(url);
  if (location.engine !== 'sqlite' || location.path === ':memory:' || isAbsolute(location.path)) return url;
  return `sqlite:${resolve(baseDir, location.path)}`;
}

/**
 * What a command says when it had to create the SQLite file it was pointed at: an operator who
 * expected existing data learns at once that it is looking at the wrong place.
 */
export function newDatabaseNotice(command: string, variable: string, url: string): string {
  const location = parseDatabaseUrl(url);
  const where = location.engine === 'sqlite' ? location.path : 'the configured database';
  return `${command}: note: no database was at ${where}; created a new, empty one (set ${variable} to use another)`;
}

/** `sqlite:./data/x.db`, `sqlite::memory:`, or a postgres:// URL; anything else is refused. */
export async function openDatabase<DB>(url: string, options: OpenOptions = {}): Promise<Database<DB>> {
  const location = parseDatabaseUrl(url);
  if (location.engine === 'postgres') return openPostgres<DB>(location.url, options);
  return openSqlite<DB>(location.path);
}

function openSqlite<DB>(path: string): Database<DB> {
  const created = path !== ':memory:' && !existsSync(path);
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
    created,
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
    created: false,
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: () => db.destroy(),
  };
}
