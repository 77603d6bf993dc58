/**
 * Which service a database (a SQLite file, or one PostgreSQL schema) belongs to. Both services
 * keep their migrations in a table of the same name and both have a `users` table, so a service
 * pointed at the other's database would fail half-way with Kysely's "corrupted migrations", or
 * worse, create its tables beside the other's. A one-row table names the owner: the first service
 * to migrate a database claims it, and any other is refused with the owner's name.
 */
import { type Kysely, sql } from 'kysely';
import { currentSchema, MIGRATION_TABLE } from './portable.ts';
import { scopedToSchema } from './scoped-introspector.ts';

const OWNER_TABLE = 'database_owner';

/** The database belongs to another service, or holds migrations this service does not know. */
export class DatabaseOwnerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'DatabaseOwnerError';
  }
}

/** What one database (file or schema) holds, as far as ownership goes. */
export interface Holdings {
  /** The service named in the owner table; undefined before any service claimed it. */
  readonly owner: string | undefined;
  /** Names in the migration table; undefined when there is no migration table. */
  readonly migrations: readonly string[] | undefined;
}

export interface Claimant {
  readonly service: string;
  /** The migration names this service declares. */
  readonly known: ReadonlySet<string>;
  /** Where the database is (databaseLabel), for messages. */
  readonly label: string;
  /** The settings that choose the database, named in a refusal (e.g. `GATEWAY_DATABASE_URL`). */
  readonly settings: string;
}

/** `schema` on PostgreSQL (looked at by name, whatever the search_path); undefined on SQLite. */
export async function holdings(db: Kysely<unknown>, schema: string | undefined): Promise<Holdings> {
  const tables = await tableNames(db, schema);
  const from = (table: string) => (schema === undefined ? sql.table(table) : sql.table(`${schema}.${table}`));
  const owner = tables.has(OWNER_TABLE)
    ? (await sql<{ service: string }>`select service from ${from(OWNER_TABLE)} where id = 1`.execute(db))
        .rows[0]?.service
    : undefined;
  const migrations = tables.has(MIGRATION_TABLE)
    ? (await sql<{ name: string }>`select name from ${from(MIGRATION_TABLE)}`.execute(db)).rows.map(
        (row) => row.name,
      )
    : undefined;
  return { owner, migrations };
}

/** Whether these holdings are this service's own tables (claimed, or migrated before the claim existed). */
export function heldBy(found: Holdings, claimant: Pick<Claimant, 'service' | 'known'>): boolean {
  if (found.owner !== undefined) return found.owner === claimant.service;
  const names = found.migrations ?? [];
  return names.length > 0 && names.every((name) => claimant.known.has(name));
}

/** Refuses holdings of another service, or migrations of a newer version of this one. */
export function refuseForeign(found: Holdings, claimant: Claimant): void {
  const { service, label, settings } = claimant;
  const needsItsOwn = `the ${service} service needs its own (set ${settings})`;
  if (found.owner !== undefined && found.owner !== service)
    throw new DatabaseOwnerError(
      `the database at ${label} belongs to the ${found.owner} service; ${needsItsOwn}`,
    );
  const unknown = (found.migrations ?? []).filter((name) => !claimant.known.has(name));
  if (unknown.length === 0) return;
  const list = unknown.join(', ');
  throw new DatabaseOwnerError(
    found.owner === service
      ? `the database at ${label} was migrated by a newer version of the ${service} service (migrations ${list} are unknown to this one)`
      : `the database at ${label} holds another application's tables (its migrations ${list} are not the ${service} service's); ${needsItsOwn}`,
  );
}

/**
 * Refuses a database that is not this service's, then claims it if nobody has. Two processes
 * may claim at once (two instances starting, or both services on one schema by mistake): the
 * row has one fixed key, so exactly one claim is stored and the loser reads the winner's name.
 */
export async function claim(db: Kysely<unknown>, claimant: Claimant): Promise<void> {
  const schema = await currentSchema(db);
  const found = await holdings(db, schema);
  refuseForeign(found, claimant);
  if (found.owner === claimant.service) return;
  try {
    await sql`create table if not exists ${sql.table(OWNER_TABLE)} (
      id integer primary key check (id = 1),
      service text not null
    )`.execute(db);
  } catch (error) {
    // Concurrent CREATE TABLE IF NOT EXISTS can collide in PostgreSQL's catalog; fine if it exists now.
    if (!(await tableNames(db, schema)).has(OWNER_TABLE)) throw error;
  }
  await sql`insert into ${sql.table(OWNER_TABLE)} (id, service) values (1, ${claimant.service})
    on conflict (id) do nothing`.execute(db);
  refuseForeign(await holdings(db, schema), claimant);
}

/** The tables of the schema (PostgreSQL) or file (SQLite), Kysely's own included. */
async function tableNames(db: Kysely<unknown>, schema: string | undefined): Promise<Set<string>> {
  if (schema !== undefined) {
    const tables = await scopedToSchema(db, schema).introspection.getTables();
    return new Set(tables.map((table) => table.name));
  }
  const { rows } = await sql<{ name: string }>`select name from sqlite_master where type = 'table'`.execute(
    db,
  );
  return new Set(rows.map((row) => row.name));
}
