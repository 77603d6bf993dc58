import { DatabaseSync, type SQLInputValue, type StatementSync } from 'node:sqlite';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

type Params = ReadonlyArray<unknown>;

/** Distinct SQL texts a service issues are a few dozen; the bound only guards against misuse. */
const STATEMENT_CACHE_SIZE = 256;

function toInputs(parameters: Params): SQLInputValue[] {
  return parameters.map((value) => {
    if (typeof value === 'boolean') return value ? 1 : 0;
    if (value instanceof Date) return value.toISOString();
    return value as SQLInputValue;
  });
}

/**
 * Kysely opens every transaction with a deferred `begin`. In WAL mode a deferred transaction
 * that reads and then writes fails at once with "database is locked" when another connection
 * (gatewayctl beside a running gateway) committed in between: busy_timeout cannot help, since
 * waiting would not make its snapshot current. Taking the write lock at `begin` makes the
 * transaction wait its turn under busy_timeout instead.
 */
const BEGIN_WRITE = 'begin immediate';

/**
 * Kysely's SqliteDialect speaks the better-sqlite3 interface; node:sqlite differs in spreading
 * parameters and in how a statement says it returns rows. This is that glue, so the embedded
 * database needs no native addon tied to one Node ABI.
 *
 * Statements are cached by SQL text: preparing one (and asking `columns()`) costs tens of
 * microseconds on wide rows, more than the rest of a small request, and Kysely emits the same
 * text for the same query shape. Kysely's SQLite driver runs one query at a time per
 * connection, so a cached statement is never used concurrently.
 */
export function nodeSqliteForKysely(raw: DatabaseSync): SqliteDatabase {
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
      const { statement, reader } = prepared(text === 'begin' ? BEGIN_WRITE : text);
      return {
        reader,
        all: (parameters: Params) => statement.all(...toInputs(parameters)),
        run: (parameters: Params) => statement.run(...toInputs(parameters)),
        iterate: (parameters: Params) => statement.iterate(...toInputs(parameters)),
      };
    },
  };
}

export function openNodeSqlite(path: string): { raw: DatabaseSync; database: SqliteDatabase } {
  const raw = new DatabaseSync(path);
  return { raw, database: nodeSqliteForKysely(raw) };
}
