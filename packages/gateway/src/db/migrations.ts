import { engineOf, idColumn } from '@app/db';
import { type Kysely, type Migration, sql } from 'kysely';
import { budgetAlerts } from './budget-alerts-migration.ts';
import { usageMeters } from './usage-meters-migration.ts';
import { usageReservedIndex } from './reserved-index-migration.ts';

const access0001: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('users')
      .addColumn('id', 'integer', idColumn(db))
      .addColumn('email', 'text', (c) => c.notNull().unique())
      .addColumn('is_admin', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('projects')
      .addColumn('id', 'integer', idColumn(db))
      .addColumn('slug', 'text', (c) => c.notNull().unique())
      .addColumn('ip_allow', 'text', (c) => c.notNull().defaultTo('[]'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('memberships')
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id'))
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('is_admin', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('requested_at', 'text', (c) => c.notNull())
      .addColumn('decided_at', 'text')
      .addPrimaryKeyConstraint('memberships_pk', ['project_id', 'user_id'])
      .execute();
    // Primary key (project_id, provider): reserve() and balances() are single-index lookups.
    await db.schema
      .createTable('allocations')
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id'))
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('allocated_micros', 'bigint', (c) => c.notNull())
      .addColumn('spent_micros', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('reserved_micros', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('allocations_pk', ['project_id', 'provider'])
      .execute();
    await db.schema
      .createTable('access_tokens')
      .addColumn('jti', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id'))
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('last_used_at', 'text')
      .addColumn('revoked_at', 'text')
      .execute();
    await db.schema.createIndex('access_tokens_user').on('access_tokens').columns(['user_id']).execute();
    await db.schema
      .createTable('usage')
      .addColumn('id', 'integer', idColumn(db))
      .addColumn('token_jti', 'text', (c) => c.notNull())
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id'))
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('model', 'text')
      .addColumn('prompt_tokens', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('completion_tokens', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('cached_tokens', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('reserved_micros', 'bigint', (c) => c.notNull())
      .addColumn('cost_micros', 'bigint', (c) => c.notNull().defaultTo(0))
      .addColumn('status', 'text', (c) => c.notNull())
      .addColumn('reason', 'text')
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('settled_at', 'text')
      .execute();
    await db.schema
      .createIndex('usage_project_time')
      .on('usage')
      .columns(['project_id', 'created_at'])
      .execute();
    // The stale-reservation sweep reads only open reservations (0011 makes this index partial).
    await db.schema.createIndex('usage_status_time').on('usage').columns(['status', 'created_at']).execute();
  },
  async down(db: Kysely<unknown>) {
    for (const table of ['usage', 'access_tokens', 'allocations', 'memberships', 'projects', 'users'])
      await db.schema.dropTable(table).execute();
  },
};

/**
 * The account dashboard: identities from OpenID Connect providers (a user is matched by issuer
 * and subject), server-side sessions and sign-ins in progress. Session and login ids are stored
 * as SHA-256 hashes, so a copy of the database does not sign anyone in.
 */
const dashboardIdentitiesSessions: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('user_identities')
      .addColumn('issuer', 'text', (c) => c.notNull())
      .addColumn('subject', 'text', (c) => c.notNull())
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
      .addColumn('email', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('last_sign_in_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('user_identities_pk', ['issuer', 'subject'])
      .execute();
    await db.schema.createIndex('user_identities_user').on('user_identities').columns(['user_id']).execute();
    await db.schema
      .createTable('dashboard_sessions')
      .addColumn('id_hash', 'text', (c) => c.primaryKey())
      .addColumn('user_id', 'integer', (c) => c.notNull().references('users.id'))
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('seen_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('id_token', 'text')
      .execute();
    await db.schema
      .createIndex('dashboard_sessions_expiry')
      .on('dashboard_sessions')
      .columns(['expires_at'])
      .execute();
    await db.schema
      .createTable('dashboard_logins')
      .addColumn('id_hash', 'text', (c) => c.primaryKey())
      .addColumn('state', 'text', (c) => c.notNull())
      .addColumn('nonce', 'text', (c) => c.notNull())
      .addColumn('code_verifier', 'text', (c) => c.notNull())
      .addColumn('return_to', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
  },
  async down(db: Kysely<unknown>) {
    for (const table of ['dashboard_logins', 'dashboard_sessions', 'user_identities'])
      await db.schema.dropTable(table).execute();
  },
};

/**
 * Rate limits set by gateway admins per project: one row for the project as a whole, one for
 * each of its tokens (scope `token`). A NULL column is no limit on that dimension.
 */
const rateLimits: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('rate_limits')
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id'))
      .addColumn('scope', 'text', (c) => c.notNull())
      .addColumn('requests_per_minute', 'bigint')
      .addColumn('tokens_per_minute', 'bigint')
      .addColumn('concurrent_requests', 'bigint')
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .addPrimaryKeyConstraint('rate_limits_pk', ['project_id', 'scope'])
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('rate_limits').execute();
  },
};

/**
 * The audit trail of account changes (tokens issued and revoked, memberships, allocations,
 * projects and their IP allowlists): who, when, what. Listed per project, newest first, by id.
 */
const auditEvents: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('audit_events')
      .addColumn('id', 'integer', idColumn(db))
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id'))
      .addColumn('actor_user_id', 'integer', (c) => c.references('users.id'))
      .addColumn('actor', 'text', (c) => c.notNull())
      .addColumn('action', 'text', (c) => c.notNull())
      .addColumn('subject', 'text', (c) => c.notNull())
      .addColumn('detail', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createIndex('audit_events_project')
      .on('audit_events')
      .columns(['project_id', 'id'])
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('audit_events').execute();
  },
};

/**
 * Budget leases (docs/gateway/access.md, "Allocations and the ledger"): each gateway instance
 * holds part of a bucket and reserves against it in memory. `amount_micros` is what the lease
 * holds in `allocations.reserved_micros` now; a lease that is not renewed before `expires_at`
 * (its instance died) is closed by any other instance, and its amount at that moment is the most
 * usage the instance can have left unrecorded. Closed leases stay as that record.
 */
const budgetLeases: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('budget_leases')
      .addColumn('id', 'integer', idColumn(db))
      .addColumn('instance_id', 'text', (c) => c.notNull())
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id'))
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('amount_micros', 'bigint', (c) => c.notNull())
      .addColumn('leased_micros', 'bigint', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('closed_at', 'text')
      .addColumn('closed_as', 'text')
      .execute();
    // The expiry sweep reads only open leases.
    await db.schema
      .createIndex('budget_leases_open')
      .on('budget_leases')
      .columns(['closed_at', 'expires_at'])
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('budget_leases').execute();
  },
};

const AUDIT_COLUMNS = [
  'id',
  'project_id',
  'actor_user_id',
  'actor',
  'action',
  'subject',
  'detail',
  'created_at',
];

/**
 * SQLite cannot drop a NOT NULL nor a column with a foreign key: the audit trail is copied into
 * a new table with an optional `project_id`, with or without `actor_admin_key_id`.
 */
async function rebuildSqliteAuditEvents(db: Kysely<unknown>, adminKeyColumn: boolean): Promise<void> {
  let table = db.schema
    .createTable('audit_events_next')
    .addColumn('id', 'integer', idColumn(db))
    .addColumn('project_id', 'integer', (c) => c.references('projects.id'))
    .addColumn('actor_user_id', 'integer', (c) => c.references('users.id'));
  if (adminKeyColumn)
    table = table.addColumn('actor_admin_key_id', 'integer', (c) => c.references('admin_keys.id'));
  await table
    .addColumn('actor', 'text', (c) => c.notNull())
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('subject', 'text', (c) => c.notNull())
    .addColumn('detail', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  const columns = sql.join(AUDIT_COLUMNS.map((column) => sql.ref(column)));
  await sql`insert into audit_events_next (${columns}) select ${columns} from audit_events`.execute(db);
  await db.schema.dropTable('audit_events').execute();
  await db.schema.alterTable('audit_events_next').renameTo('audit_events').execute();
  await db.schema
    .createIndex('audit_events_project')
    .on('audit_events')
    .columns(['project_id', 'id'])
    .execute();
}

/**
 * Admin keys, the credentials of the admin API (/admin/v1): stored as the SHA-256 of the key
 * only. The audit trail learns who acted through one (`actor_admin_key_id`) and records changes
 * that belong to no project (a user created, an admin key created or revoked): `project_id`
 * becomes optional.
 */
const adminKeys: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .createTable('admin_keys')
      .addColumn('id', 'integer', idColumn(db))
      .addColumn('key_hash', 'text', (c) => c.notNull().unique())
      .addColumn('description', 'text', (c) => c.notNull())
      .addColumn('scopes', 'text', (c) => c.notNull())
      .addColumn('created_at', 'text', (c) => c.notNull())
      .addColumn('expires_at', 'text', (c) => c.notNull())
      .addColumn('last_used_at', 'text')
      .addColumn('revoked_at', 'text')
      .execute();
    if (engineOf(db) === 'sqlite') return rebuildSqliteAuditEvents(db, true);
    await db.schema
      .alterTable('audit_events')
      .alterColumn('project_id', (c) => c.dropNotNull())
      .execute();
    await db.schema
      .alterTable('audit_events')
      .addColumn('actor_admin_key_id', 'integer', (c) => c.references('admin_keys.id'))
      .execute();
  },
  async down(db: Kysely<unknown>) {
    // The trail keeps every entry, so project_id stays optional; the admin-key column goes.
    if (engineOf(db) === 'sqlite') await rebuildSqliteAuditEvents(db, false);
    else await db.schema.alterTable('audit_events').dropColumn('actor_admin_key_id').execute();
    await db.schema.dropTable('admin_keys').execute();
  },
};

/**
 * The coding agent's session on each usage row (routing/session.ts), so spend can be read per
 * session. Nullable: most requests have none, and older rows keep null.
 */
const usageSession: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema.alterTable('usage').addColumn('session_id', 'text').execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.alterTable('usage').dropColumn('session_id').execute();
  },
};

/**
 * The usage ledger becomes the activity log (docs/gateway/dashboard.md, "Activity log"): each
 * attempt's row says which request it belongs to (the request id the client got), its place
 * among the request's attempts, the effort and tier served, the token kinds the ledger did not
 * keep, its latency and time to first token, and how it ended. Nullable or 0 by default: older
 * rows stay valid and show as unknown. The two indexes serve the log's pages filtered by token
 * and by user (members see only their own requests), newest first.
 */
const ACTIVITY_COLUMNS: ReadonlyArray<readonly [string, 'text' | 'integer', boolean]> = [
  ['request_id', 'text', false],
  ['attempt', 'integer', false],
  ['effort', 'text', false],
  ['tier', 'text', false],
  ['cache_write_tokens', 'integer', true],
  ['reasoning_tokens', 'integer', true],
  ['latency_ms', 'integer', false],
  ['first_token_ms', 'integer', false],
  ['outcome', 'text', false],
  ['http_status', 'integer', false],
];

const usageActivity: Migration = {
  async up(db: Kysely<unknown>) {
    for (const [name, type, counted] of ACTIVITY_COLUMNS)
      await db.schema
        .alterTable('usage')
        .addColumn(name, type, (c) => (counted ? c.notNull().defaultTo(0) : c))
        .execute();
    for (const [name, column] of [
      ['usage_project_token_time', 'token_jti'],
      ['usage_project_user_time', 'user_id'],
    ] as const)
      await db.schema
        .createIndex(name)
        .on('usage')
        .columns(['project_id', column, 'created_at', 'id'])
        .execute();
  },
  async down(db: Kysely<unknown>) {
    for (const name of ['usage_project_token_time', 'usage_project_user_time'])
      await db.schema.dropIndex(name).execute();
    for (const [name] of ACTIVITY_COLUMNS) await db.schema.alterTable('usage').dropColumn(name).execute();
  },
};

/** Every schema change of the gateway, in order. Never edit one that has shipped. */
export const gatewayMigrations: Record<string, Migration> = {
  '0001_access': access0001,
  '0002_dashboard_identities_sessions': dashboardIdentitiesSessions,
  '0003_rate_limits': rateLimits,
  '0004_audit_events': auditEvents,
  '0005_budget_leases': budgetLeases,
  '0006_admin_keys': adminKeys,
  '0007_usage_session': usageSession,
  '0008_usage_activity': usageActivity,
  '0009_budget_alerts': budgetAlerts,
  '0010_usage_meters': usageMeters,
  '0011_usage_reserved_index': usageReservedIndex,
};
