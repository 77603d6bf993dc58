import { type ColumnDefinitionBuilder, type Kysely, SqliteAdapter, sql } from 'kysely';
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

/** Where each service's migrations are recorded (in its own schema on PostgreSQL). */
export const MIGRATION_TABLE = 'kysely_migration';

/** The schema unqualified names resolve to (the connection's search_path) on PostgreSQL; undefined on SQLite. */
export async function currentSchema<DB>(db: Kysely<DB>): Promise<string | undefined> {
  if (engineOf(db) === 'sqlite') return undefined;
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(db);
  return rows[0]?.schema;
}
