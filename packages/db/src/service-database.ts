/**
 * A service's own database, as the service, its CLI and its tests open it: one PostgreSQL schema
 * per service (so one database serves both services, each with its own migration table and its
 * own `users`), claimed by the service that migrated it; on SQLite, one file per service.
 */
import type { Kysely, Migration } from 'kysely';
import { type Database, DatabaseMissingError, isPostgresUrl, openDatabase } from './database.ts';
import { migrateToLatest, type MigrationOutcome } from './migrate.ts';
import { type Claimant, claim, heldBy, holdings, refuseForeign } from './ownership.ts';

export interface ServiceSpec {
  /** `gateway`, `energy`: claimed in the owner table, named in refusals, and the default schema. */
  readonly service: string;
  readonly migrations: Record<string, Migration>;
  /** The settings that choose the database, named in messages. */
  readonly urlSetting: string;
  readonly schemaSetting: string;
}

/** The two settings of a service's config that say where its database is. */
export interface ServiceDatabaseConfig {
  readonly databaseUrl: string;
  /** The schema on PostgreSQL; unused on SQLite. */
  readonly databaseSchema: string;
}

export interface ServiceDatabaseOptions<DB> {
  /** An already-open database to claim and migrate instead of opening the configured one (tests). */
  readonly database?: Database<DB>;
  /** False (a CLI without --create): refuse a database the service has not set up, never create one. */
  readonly create?: boolean;
}

export interface ServiceDatabase<DB> extends Database<DB> {
  /** Set when the service keeps using its tables in `public`, where a version before per-service schemas put them. */
  readonly legacyNotice: string | undefined;
}

function claimant(spec: ServiceSpec, label: string): Claimant {
  return {
    service: spec.service,
    known: new Set(Object.keys(spec.migrations)),
    label,
    settings: `${spec.urlSetting}, ${spec.schemaSetting}`,
  };
}

/** Opens the service's database, refuses one that is not the service's, claims and migrates it. */
export async function openServiceDatabase<DB>(
  spec: ServiceSpec,
  config: ServiceDatabaseConfig,
  options: ServiceDatabaseOptions<DB> = {},
): Promise<ServiceDatabase<DB>> {
  if (options.database) {
    await migrateService(options.database, spec);
    return { ...options.database, legacyNotice: undefined };
  }
  const create = options.create ?? true;
  const url = config.databaseUrl;
  const schema = isPostgresUrl(url) ? await chooseSchema(spec, url, config.databaseSchema) : undefined;
  let database: Database<DB>;
  try {
    database = await openDatabase<DB>(url, { ...(schema === undefined ? {} : { schema }), create });
  } catch (error) {
    throw error instanceof DatabaseMissingError ? missing(spec, error.where) : error;
  }
  try {
    await migrateService(database, spec, { create });
  } catch (error) {
    await database.close();
    throw error;
  }
  const legacy = schema === 'public' && config.databaseSchema !== 'public';
  return {
    ...database,
    legacyNotice: legacy
      ? `the ${spec.service} service's tables are in schema public (where versions before per-service schemas put them) and stay there; ` +
        `set ${spec.schemaSetting}=public to say so, or move them (docs/operations.md)`
      : undefined,
  };
}

/**
 * Refuses a database of another service, claims it for this one and runs the pending
 * migrations. Without `create`, a database holding none of the service's tables is refused too.
 */
async function migrateService<DB>(
  database: Database<DB>,
  spec: ServiceSpec,
  options: { create?: boolean } = {},
): Promise<MigrationOutcome> {
  const who = claimant(spec, database.label);
  if (options.create === false) {
    const found = await holdings(database.db as Kysely<unknown>, database.schema);
    refuseForeign(found, who);
    if (found.migrations === undefined)
      throw missing(spec, `${database.label} (it holds none of the ${spec.service} service's tables)`);
  }
  await claim(database.db as Kysely<unknown>, who);
  return migrateToLatest(database.db, spec.migrations);
}

function missing(spec: ServiceSpec, where: string): DatabaseMissingError {
  return new DatabaseMissingError(
    where,
    `set ${spec.urlSetting} (and ${spec.schemaSetting}) to the ${spec.service} service's database`,
  );
}

/**
 * The configured schema, except for one case kept working: the schema is the default (the
 * service's name), holds nothing, and `public` holds this service's tables, migrated there by a
 * version before per-service schemas. Then the service stays in `public` (and says so).
 */
async function chooseSchema(spec: ServiceSpec, url: string, configured: string): Promise<string> {
  if (configured !== spec.service) return configured;
  const probe = await openDatabase<unknown>(url, { poolSize: 1 });
  try {
    const own = await holdings(probe.db, configured);
    if (own.owner !== undefined || own.migrations !== undefined) return configured;
    return heldBy(await holdings(probe.db, 'public'), claimant(spec, '')) ? 'public' : configured;
  } finally {
    await probe.close();
  }
}
