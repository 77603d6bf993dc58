import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import { type Database, isPostgresUrl, openDatabase } from '@app/db';
import { Kysely, type SqliteDatabase, SqliteDialect, type SqliteStatement, sql } from 'kysely';
import type { EnergyDatabase } from './schema.ts';

/** Distinct SQL texts the service issues are a few dozen; the bound only guards against misuse. */
const STATEMENT_CACHE_SIZE = 256;

function toInputs(parameters: ReadonlyArray<unknown>): SQLInputValue[] {
  return parameters.map((value) => {
    if (typeof value === 'boolean') return value ? 1 : 0;
    if (value instanceof Date) return value.toISOString();
    return value as SQLInputValue;
  });
}

/**
 * The node:sqlite glue of `@app/db`, plus a prepared-statement cache. `@app/db` prepares every
 * query afresh and asks `columns()` each time, which costs ~90 us per query on this service's
 * 20-column rows (more than the rest of a request); Kysely emits the same SQL text for the
 * same query shape, so statements are prepared once and reused. Kysely's SQLite driver runs one
 * query at a time per connection, so a cached statement is never used concurrently.
 */
export function cachingSqlite(raw: DatabaseSync): SqliteDatabase {
  const cache = new Map<string, { statement: StatementSync; reader: boolean }>();
  const prepared = (text: string) => {
    const hit = cache.get(text);
    if (hit) return hit;
    const statement = raw.prepare(text);
    const entry = { statement, reader: statement.columns().length > 0 };
    if (cache.size >= STATEMENT_CACHE_SIZE) cache.delete(cache.keys().next().value as string);
    cache.set(text, entry);
    return entry;
  };
  return {
    close: () => {
      cache.clear();
      raw.close();
    },
    prepare(text: string): SqliteStatement {
      const { statement, reader } = prepared(text);
      return {
        reader,
        all: (parameters) => statement.all(...toInputs(parameters)),
        run: (parameters) => statement.run(...toInputs(parameters)),
        iterate: (parameters) => statement.iterate(...toInputs(parameters)),
      };
    },
  };
}

function openSqlite(path: string): Database<EnergyDatabase> {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const raw = new DatabaseSync(path);
  // Same settings as @app/db: WAL for readers beside the writer, foreign keys, wait on locks.
  raw.exec('PRAGMA journal_mode = WAL; PRAGMA foreign_keys = ON; PRAGMA busy_timeout = 5000;');
  const db = new Kysely<EnergyDatabase>({ dialect: new SqliteDialect({ database: cachingSqlite(raw) }) });
  return {
    db,
    engine: 'sqlite',
    ping: async () => {
      await sql`select 1`.execute(db);
    },
    close: () => db.destroy(),
  };
}

/** The service's database: SQLite through the statement cache above, PostgreSQL through `@app/db`. */
export async function openEnergyDatabase(url: string): Promise<Database<EnergyDatabase>> {
  if (isPostgresUrl(url)) return openDatabase<EnergyDatabase>(url);
  return openSqlite(url.replace(/^sqlite:/, ''));
}
