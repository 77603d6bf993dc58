import { type Kysely, type Migration, type MigrationProvider, Migrator } from 'kysely';

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
  options: { table?: string } = {},
): Promise<MigrationOutcome> {
  const migrator = new Migrator({
    db,
    provider: new RecordMigrationProvider(migrations),
    migrationTableName: options.table ?? 'kysely_migration',
    migrationLockTableName: `${options.table ?? 'kysely_migration'}_lock`,
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
