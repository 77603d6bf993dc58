import {
  type DatabaseIntrospector,
  type DatabaseMetadata,
  type Kysely,
  type SchemaMetadata,
  sql,
  type TableMetadata,
} from 'kysely';

/**
 * Kysely's PostgreSQL introspector lists the tables of every schema on the server, calling
 * `has_schema_privilege` on each by name; a schema someone else drops while that query runs
 * (parallel test files, other services sharing the server) fails it with "schema ... does not
 * exist" although nothing is wrong here. The migrator only needs to know about its own schema,
 * so this one looks nowhere else.
 */
class SchemaIntrospector implements DatabaseIntrospector {
  readonly #db: Kysely<unknown>;
  readonly #schema: string;

  constructor(db: Kysely<unknown>, schema: string) {
    this.#db = db;
    this.#schema = schema;
  }

  async getSchemas(): Promise<SchemaMetadata[]> {
    const { rows } = await sql<{ name: string }>`
      select nspname as name from pg_catalog.pg_namespace where nspname = ${this.#schema}`.execute(this.#db);
    return rows;
  }

  async getTables(): Promise<TableMetadata[]> {
    const { rows } = await sql<{ name: string; kind: string }>`
      select c.relname as name, c.relkind as kind
      from pg_catalog.pg_class c join pg_catalog.pg_namespace n on n.oid = c.relnamespace
      where n.nspname = ${this.#schema} and c.relkind in ('r', 'p', 'v', 'm')`.execute(this.#db);
    return rows.map((row) => ({
      name: row.name,
      schema: this.#schema,
      isView: row.kind === 'v' || row.kind === 'm',
      columns: [],
    }));
  }

  async getMetadata(): Promise<DatabaseMetadata> {
    return { tables: await this.getTables() };
  }
}

/**
 * The same Kysely instance (same pool, same connections) whose `introspection` sees one schema.
 * Methods are bound to the real instance because Kysely keeps its state in private fields.
 */
export function scopedToSchema<DB>(db: Kysely<DB>, schema: string): Kysely<DB> {
  const introspector = new SchemaIntrospector(db as Kysely<unknown>, schema);
  return new Proxy(db, {
    get(target, property) {
      if (property === 'introspection') return introspector;
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
