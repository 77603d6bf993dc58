import { type Kysely, type Migration, type MigrationProvider, Migrator } from 'kysely';
import { currentSchema, MIGRATION_TABLE } from './portable.ts';
import { scopedToSchema } from './scoped-introspector.ts';

/** Migrations declared in code (a record keyed by sortable names), so no directory scanning. */
export class RecordMigrationProvider implements MigrationProvider {
  readonly #migrations: Record<string, Migration>;
  constructor(migrations: Record<string, Migration>) {
    this.#migrations = migrations;
  }
  async getMigrations(): Promise<Record<string, Migration>> {
    return this.#migrations;
  }
}

export interface MigrationOutcome {
  readonly applied: readonly string[];
}

/** Runs every pending migration in order; throws with the failing migration's name. */
export async function migrateToLatest<DB>(
  db: Kysely<DB>,
  migrations: Record<string, Migration>,
): Promise<MigrationOutcome> {
  // Kysely looks for its bookkeeping tables in every schema unless told which one, so on a
  // PostgreSQL server with other schemas (parallel tests, other services) it would find theirs
  // and never create its own. Pin it to the connection's current schema.
  const schema = await currentSchema(db);
  const migrator = new Migrator({
    db: schema ? scopedToSchema(db, schema) : db,
    provider: new RecordMigrationProvider(migrations),
    ...(schema ? { migrationTableSchema: schema } : {}),
    migrationTableName: MIGRATION_TABLE,
    migrationLockTableName: `${MIGRATION_TABLE}_lock`,
  });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((result) => result.status === 'Error');
  if (error || failed) {
    const name = failed?.migrationName ?? 'unknown';
    throw new Error(`migration ${name} failed: ${error instanceof Error ? error.message : String(error)}`, {
      cause: error,
    });
  }
  return { applied: (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName) };
}
