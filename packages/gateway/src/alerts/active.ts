/**
 * The alerts a project page shows: crossings of each bucket's current allocation epoch that no
 * admin dismissed. Setting the allocation again starts a new epoch, which clears the banner.
 */
import type { Kysely } from 'kysely';
import { findProject } from '../access/admin.ts';
import { type Actor, inTransaction, recordAudit } from '../access/audit.ts';
import type { AlertDelivery, GatewayDatabase } from '../db/schema.ts';
import { printable } from './printable.ts';

type Db = Kysely<GatewayDatabase>;

export interface ActiveAlert {
  readonly provider: string;
  /** The highest threshold crossed in this bucket's epoch. */
  readonly threshold: number;
  readonly allocatedMicros: number;
  readonly spentMicros: number;
  readonly crossedAt: string;
  readonly delivery: AlertDelivery;
}

const current = (db: Db, projectId: number) =>
  db
    .selectFrom('budget_alerts as b')
    .innerJoin('allocations as a', (join) =>
      join
        .onRef('a.project_id', '=', 'b.project_id')
        .onRef('a.provider', '=', 'b.provider')
        .onRef('a.alert_epoch', '=', 'b.epoch'),
    )
    .where('b.project_id', '=', projectId)
    .where('b.dismissed_at', 'is', null);

/** One per bucket: its highest undismissed threshold of the current epoch. */
export async function activeAlerts(db: Db, projectId: number): Promise<ActiveAlert[]> {
  const rows = await current(db, projectId)
    .select([
      'b.provider',
      'b.threshold',
      'b.allocated_micros',
      'b.spent_micros',
      'b.crossed_at',
      'b.delivery',
    ])
    .orderBy('b.provider')
    .orderBy('b.threshold', 'desc')
    .execute();
  const byBucket = new Map<string, ActiveAlert>();
  for (const row of rows) {
    if (byBucket.has(row.provider)) continue;
    byBucket.set(row.provider, {
      provider: row.provider,
      threshold: Number(row.threshold),
      allocatedMicros: Number(row.allocated_micros),
      spentMicros: Number(row.spent_micros),
      crossedAt: row.crossed_at,
      delivery: row.delivery,
    });
  }
  return [...byBucket.values()];
}

/** Hides the project's current alerts from its page; webhooks already sent are not affected. */
export async function dismissAlerts(db: Db, input: { slug: string; actor?: Actor }): Promise<number> {
  const project = await findProject(db, input.slug);
  return inTransaction(db, async (trx) => {
    const ids = (await current(trx, project.id).select('b.id').execute()).map((row) => row.id);
    if (ids.length === 0) return 0;
    await trx
      .updateTable('budget_alerts')
      .set({ dismissed_at: new Date().toISOString() })
      .where('id', 'in', ids)
      .execute();
    await recordAudit(trx, input.actor, {
      projectId: project.id,
      action: 'alerts.dismiss',
      subject: 'budget alerts',
      detail: `${ids.length} alert${ids.length === 1 ? '' : 's'} dismissed`,
    });
    return ids.length;
  });
}

export interface AlertRecord {
  readonly id: string;
  readonly provider: string;
  readonly threshold: number;
  readonly epoch: number;
  readonly crossedAt: string;
  readonly delivery: AlertDelivery;
  readonly attempts: number;
  /** Printable: no control or format characters. */
  readonly lastError: string | null;
  readonly dismissed: boolean;
}

/** The project's latest alerts, newest first, with their delivery state (gatewayctl alerts show). */
export async function recentAlerts(db: Db, projectId: number, limit = 20): Promise<AlertRecord[]> {
  const rows = await db
    .selectFrom('budget_alerts')
    .selectAll()
    .where('project_id', '=', projectId)
    .orderBy('id', 'desc')
    .limit(limit)
    .execute();
  return rows.map((row) => ({
    id: row.alert_key,
    provider: row.provider,
    threshold: Number(row.threshold),
    epoch: Number(row.epoch),
    crossedAt: row.crossed_at,
    delivery: row.delivery,
    attempts: Number(row.attempts),
    // Rows stored before answers were cleaned may still hold control characters.
    lastError: row.last_error === null ? null : printable(row.last_error),
    dismissed: row.dismissed_at !== null,
  }));
}
