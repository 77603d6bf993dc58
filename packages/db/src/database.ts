import { existsSync, mkdirSync } from 'node:fs';
import { dirname, isAbsolute, resolve } from 'node:path';
import { Kysely, PostgresDialect, SqliteDialect, sql } from 'kysely';
import pg from 'pg';
import { openNodeSqlite } from './node-sqlite.ts';

export type Engine = 'sqlite' | 'postgres';

export interface Database<DB> {
  readonly db: Kysely<DB>;
  readonly engine: Engine;
  /** The PostgreSQL schema holding the tables (search_path); undefined on SQLite. */
  readonly schema: string | undefined;
  /** Where the data is, without credentials: the SQLite path, or the PostgreSQL URL and schema. */
  readonly label: string;
  /** True when this open created a new SQLite file or PostgreSQL schema (callers say so: see gatewayctl). */
  readonly created: boolean;
  /** Cheap round trip for readiness probes. */
  ping(): Promise<void>;
  close(): Promise<void>;
}

export interface OpenOptions {
  /**
   * PostgreSQL schema holding the tables (created if missing, then the connections' search_path):
   * each service has its own (configured), and each test one of its own. Unused on SQLite.
   */
  readonly schema?: string;
  readonly poolSize?: number;
  /** False: a missing SQLite file or PostgreSQL schema is refused (DatabaseMissingError), not created. */
  readonly create?: boolean;
}

/** A PostgreSQL identifier that needs no quoting and cannot inject anything: how schemas are named. */
export const SCHEMA_NAME_PATTERN = '^[a-z_][a-z0-9_]{0,62}$';
export const SCHEMA_NAME_FORM =
  'a lower-case identifier: a-z, 0-9 and _, not starting with a digit, at most 63 characters';

/** Thrown instead of creating a database that `create: false` says must already exist. */
export class DatabaseMissingError extends Error {
  /** The file or schema that is missing, without credentials. */
  readonly where: string;
  constructor(where: string, advice?: string) {
    super(`no database at ${where}${advice === undefined ? '' : `; ${advice}`}`);
    this.name = 'DatabaseMissingError';
    this.where = where;
  }
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
 * What a command prints on stderr before it works on a database: where that is (never a
 * password), so an operator sees at once when it is not the database the service uses.
 */
export function databaseNotice(
  command: string,
  database: Pick<Database<unknown>, 'label' | 'created'>,
): string {
  return `${command}: database: ${database.label}${database.created ? ' (new, empty: created now)' : ''}`;
}

/**
 * Where a database is, for an operator to read and for logs: the SQLite path, or the PostgreSQL
 * URL without user, password and query parameters (which may carry a password), and the schema.
 */
export function databaseLabel(url: string, schema?: string): string {
  const location = parseDatabaseUrl(url);
  if (location.engine === 'sqlite') return location.path;
  let bare: string;
  try {
    const parsed = new URL(location.url);
    bare = `${parsed.protocol}//${parsed.host}${parsed.pathname}`;
  } catch {
    bare = 'PostgreSQL (unparsable URL)';
  }
  return schema === undefined ? bare : `${bare}, schema ${schema}`;
}

/** `sqlite:./data/x.db`, `sqlite::memory:`, or a postgres:// URL; anything else is refused. */
export async function openDatabase<DB>(url: string, options: OpenOptions = {}): Promise<Database<DB>> {
  const location = parseDatabaseUrl(url);
  if (location.engine === 'postgres') return openPostgres<DB>(location.url, options);
  return openSqlite<DB>(location.path, options.create ?? true);
}

function openSqlite<DB>(path: string, create: boolean): Database<DB> {
  const created = path !== ':memory:' && !existsSync(path);
  if (created && !create) throw new DatabaseMissingError(path);
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
    schema: undefined,
    label: path,
    created,
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: () => db.destroy(),
  };
}

async function openPostgres<DB>(url: string, options: OpenOptions): Promise<Database<DB>> {
  const schema = options.schema;
  if (schema !== undefined && !new RegExp(SCHEMA_NAME_PATTERN).test(schema))
    throw new Error(`invalid schema name ${schema}`);
  const created = schema ? await ensureSchema(url, schema, options.create ?? true) : false;
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 10,
    ...(schema ? { options: `-c search_path="${schema}"` } : {}),
  });
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
  return {
    db,
    engine: 'postgres',
    schema,
    label: databaseLabel(url, schema),
    created,
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: () => db.destroy(),
  };
}

/**
 * Creates the schema unless it exists; true when it did. Asked first because CREATE SCHEMA IF
 * NOT EXISTS needs the CREATE privilege on the database even when the schema is there, which a
 * least-privilege role given a schema made by its DBA does not have.
 */
async function ensureSchema(url: string, schema: string, create: boolean): Promise<boolean> {
  const admin = new pg.Client({ connectionString: url });
  await admin.connect();
  const exists = async () =>
    (await admin.query('select 1 from pg_catalog.pg_namespace where nspname = $1', [schema])).rowCount !== 0;
  try {
    if (await exists()) return false;
    if (!create) throw new DatabaseMissingError(databaseLabel(url, schema));
    try {
      await admin.query(`create schema if not exists "${schema}"`);
    } catch (error) {
      // Two processes creating it at once collide in the catalog despite IF NOT EXISTS.
      if (!(await exists())) throw error;
    }
    return true;
  } finally {
    await admin.end();
  }
}
