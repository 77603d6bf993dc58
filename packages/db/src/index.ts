export { type Database, type Engine, isPostgresUrl, type OpenOptions, openDatabase } from './database.ts';
export { type MigrationOutcome, migrateToLatest, RecordMigrationProvider } from './migrate.ts';
export { engineOf, idColumn } from './portable.ts';
export { createRedis, type Redis } from './redis.ts';
