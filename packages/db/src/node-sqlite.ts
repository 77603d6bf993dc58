import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import type { SqliteDatabase, SqliteStatement } from 'kysely';

type Params = ReadonlyArray<unknown>;

function toInputs(parameters: Params): SQLInputValue[] {
  return parameters.map((value) => {
    if (typeof value === 'boolean') return value ? 1 : 0;
    if (value instanceof Date) return value.toISOString();
    return value as SQLInputValue;
  });
}

/**
 * Kysely's SqliteDialect speaks the better-sqlite3 interface; node:sqlite differs only in
 * spreading parameters and in how a statement says it returns rows. This is that glue, so the
 * embedded database needs no native addon tied to one Node ABI.
 */
export function openNodeSqlite(path: string): SqliteDatabase & { raw: DatabaseSync } {
  const raw = new DatabaseSync(path);
  return {
    raw,
    close: () => raw.close(),
    prepare(sql: string): SqliteStatement {
      const statement = raw.prepare(sql);
      return {
        reader: statement.columns().length > 0,
        all: (parameters: Params) => statement.all(...toInputs(parameters)),
        run: (parameters: Params) => statement.run(...toInputs(parameters)),
        iterate: (parameters: Params) => statement.iterate(...toInputs(parameters)),
      };
    },
  };
}
