import { type ColumnDefinitionBuilder, type Kysely, SqliteAdapter } from 'kysely';
import type { Engine } from './database.ts';

/** Which engine a Kysely instance talks to, for the few DDL spots where dialects differ. */
export function engineOf<DB>(db: Kysely<DB>): Engine {
  return db.getExecutor().adapter instanceof SqliteAdapter ? 'sqlite' : 'postgres';
}

/**
 * An integer surrogate key that works on both engines: `integer primary key autoincrement`
 * on SQLite (a rowid alias, never reused) and an identity column on PostgreSQL.
 */
export function idColumn(db: Kysely<unknown>): (column: ColumnDefinitionBuilder) => ColumnDefinitionBuilder {
  return engineOf(db) === 'sqlite'
    ? (column) => column.primaryKey().autoIncrement()
    : (column) => column.primaryKey().generatedByDefaultAsIdentity();
}
