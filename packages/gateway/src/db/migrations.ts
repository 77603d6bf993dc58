import { idColumn } from '@app/db';
import type { Kysely, Migration } from 'kysely';

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
    // The stale-reservation sweep reads only open reservations.
    await db.schema.createIndex('usage_status_time').on('usage').columns(['status', 'created_at']).execute();
  },
  async down(db: Kysely<unknown>) {
    for (const table of ['usage', 'access_tokens', 'allocations', 'memberships', 'projects', 'users'])
      await db.schema.dropTable(table).execute();
  },
};

/** Every schema change of the gateway, in order. Never edit one that has shipped. */
export const gatewayMigrations: Record<string, Migration> = {
  '0001_access': access0001,
};
