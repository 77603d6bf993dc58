export {
  anchorDatabaseUrl,
  DATABASE_URL_FORMS,
  DATABASE_URL_PATTERN,
  type Database,
  databaseLabel,
  type DatabaseLocation,
  DatabaseMissingError,
  databaseNotice,
  DatabaseUrlError,
  type Engine,
  isPostgresUrl,
  type OpenOptions,
  openDatabase,
  parseDatabaseUrl,
  SCHEMA_NAME_FORM,
  SCHEMA_NAME_PATTERN,
} from './database.ts';
export { type MigrationOutcome, migrateToLatest, RecordMigrationProvider } from './migrate.ts';
export { DatabaseOwnerError } from './ownership.ts';
export {
  openServiceDatabase,
  type ServiceDatabase,
  type ServiceDatabaseConfig,
  type ServiceDatabaseOptions,
  type ServiceSpec,
} from './service-database.ts';
export { engineOf, idColumn } from './portable.ts';
export { createRedis, type Redis } from './redis.ts';
