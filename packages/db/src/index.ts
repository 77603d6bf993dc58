export {
  anchorDatabaseUrl,
  DATABASE_URL_FORMS,
  DATABASE_URL_PATTERN,
  type Database,
  type DatabaseLocation,
  DatabaseUrlError,
  type Engine,
  isPostgresUrl,
  newDatabaseNotice,
  type OpenOptions,
  openDatabase,
  parseDatabaseUrl,
} from './database.ts';
export { type MigrationOutcome, migrateToLatest, RecordMigrationProvider } from './migrate.ts';
export { engineOf, idColumn } from './portable.ts';
export { createRedis, type Redis } from './redis.ts';
