import { idColumn } from '@app/db';
import type { Kysely, Migration } from 'kysely';

/**
 * 0009_budget_alerts (docs/gateway/budget-alerts.md). `allocations.alert_epoch` counts how often an
 * allocation was set: an alert is unique per (project, provider, threshold, epoch), so instances
 * racing to record a crossing insert one row, and an allocation set again may alert again.
 * `alert_settings` holds a project's thresholds and webhook (its signing secret is needed in
 * clear to sign). A delivery is claimed with a conditional update of `lease_until`.
 */
export const budgetAlerts: Migration = {
  async up(db: Kysely<unknown>) {
    await db.schema
      .alterTable('allocations')
      .addColumn('alert_epoch', 'integer', (c) => c.notNull().defaultTo(0))
      .execute();
    await db.schema
      .createTable('alert_settings')
      .addColumn('project_id', 'integer', (c) => c.primaryKey().references('projects.id'))
      .addColumn('thresholds', 'text', (c) => c.notNull())
      .addColumn('webhook_url', 'text')
      .addColumn('webhook_secret', 'text')
      .addColumn('updated_at', 'text', (c) => c.notNull())
      .execute();
    await db.schema
      .createTable('budget_alerts')
      .addColumn('id', 'integer', idColumn(db))
      .addColumn('alert_key', 'text', (c) => c.notNull().unique())
      .addColumn('project_id', 'integer', (c) => c.notNull().references('projects.id'))
      .addColumn('provider', 'text', (c) => c.notNull())
      .addColumn('threshold', 'integer', (c) => c.notNull())
      .addColumn('epoch', 'integer', (c) => c.notNull())
      .addColumn('allocated_micros', 'bigint', (c) => c.notNull())
      .addColumn('spent_micros', 'bigint', (c) => c.notNull())
      .addColumn('crossed_at', 'text', (c) => c.notNull())
      .addColumn('delivery', 'text', (c) => c.notNull())
      .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
      .addColumn('next_attempt_at', 'text')
      .addColumn('lease_until', 'text')
      .addColumn('last_error', 'text')
      .addColumn('delivered_at', 'text')
      .addColumn('dismissed_at', 'text')
      .addUniqueConstraint('budget_alerts_crossing', ['project_id', 'provider', 'threshold', 'epoch'])
      .execute();
    // The delivery loop reads only pending alerts that are due.
    await db.schema
      .createIndex('budget_alerts_due')
      .on('budget_alerts')
      .columns(['delivery', 'next_attempt_at'])
      .execute();
  },
  async down(db: Kysely<unknown>) {
    await db.schema.dropTable('budget_alerts').execute();
    await db.schema.dropTable('alert_settings').execute();
    await db.schema.alterTable('allocations').dropColumn('alert_epoch').execute();
  },
};
