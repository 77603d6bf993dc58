/**
 * Finding crossed thresholds from the database, which every instance shares: the ledger's group
 * commits move spend into `allocations.spent_micros`, and every instance compares it with the
 * thresholds on a timer. Two instances that see the same crossing both insert its alert; the
 * unique (project, provider, threshold, epoch) lets one row in, and only the instance whose
 * insert landed writes the log line.
 */
import { randomUUID } from 'node:crypto';
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { GatewayDatabase } from '../db/schema.ts';
import { formatUsd } from '../money.ts';
import { DEFAULT_THRESHOLDS } from './settings.ts';

type Db = Kysely<GatewayDatabase>;

export interface Crossing {
  readonly projectId: number;
  readonly slug: string;
  readonly provider: string;
  readonly threshold: number;
  readonly epoch: number;
  readonly allocatedMicros: number;
  readonly spentMicros: number;
  readonly hasWebhook: boolean;
}

/** Spend at or above `threshold` percent of the allocation (integers: no rounding at the edge). */
export function reached(spentMicros: number, allocatedMicros: number, threshold: number): boolean {
  return allocatedMicros > 0 && spentMicros * 100 >= allocatedMicros * threshold;
}

/** Crossings of the buckets' current epochs that have no alert yet. */
export async function newCrossings(db: Db): Promise<Crossing[]> {
  const [buckets, recorded] = await Promise.all([
    db
      .selectFrom('allocations as a')
      .innerJoin('projects as p', 'p.id', 'a.project_id')
      .leftJoin('alert_settings as s', 's.project_id', 'a.project_id')
      .select([
        'a.project_id',
        'p.slug',
        'a.provider',
        'a.allocated_micros',
        'a.spent_micros',
        'a.alert_epoch',
        's.thresholds',
        's.webhook_url',
      ])
      .where('a.allocated_micros', '>', 0)
      .where('a.spent_micros', '>', 0)
      .execute(),
    db
      .selectFrom('budget_alerts as b')
      .innerJoin('allocations as a', (join) =>
        join
          .onRef('a.project_id', '=', 'b.project_id')
          .onRef('a.provider', '=', 'b.provider')
          .onRef('a.alert_epoch', '=', 'b.epoch'),
      )
      .select(['b.project_id', 'b.provider', 'b.threshold'])
      .execute(),
  ]);
  const seen = new Set(recorded.map((r) => `${r.project_id}/${r.provider}/${Number(r.threshold)}`));
  const crossings: Crossing[] = [];
  for (const bucket of buckets) {
    const thresholds = bucket.thresholds ? (JSON.parse(bucket.thresholds) as number[]) : DEFAULT_THRESHOLDS;
    const [allocated, spent] = [Number(bucket.allocated_micros), Number(bucket.spent_micros)];
    for (const threshold of thresholds) {
      if (!reached(spent, allocated, threshold)) continue;
      if (seen.has(`${bucket.project_id}/${bucket.provider}/${threshold}`)) continue;
      crossings.push({
        projectId: bucket.project_id,
        slug: bucket.slug,
        provider: bucket.provider,
        threshold,
        epoch: Number(bucket.alert_epoch),
        allocatedMicros: allocated,
        spentMicros: spent,
        hasWebhook: bucket.webhook_url !== null,
      });
    }
  }
  return crossings;
}

/** Records one crossing; true when this call's row is the one that landed. */
export async function recordCrossing(db: Db, crossing: Crossing, now: Date): Promise<boolean> {
  const at = now.toISOString();
  const inserted = await db
    .insertInto('budget_alerts')
    .values({
      alert_key: randomUUID(),
      project_id: crossing.projectId,
      provider: crossing.provider,
      threshold: crossing.threshold,
      epoch: crossing.epoch,
      allocated_micros: crossing.allocatedMicros,
      spent_micros: crossing.spentMicros,
      crossed_at: at,
      delivery: crossing.hasWebhook ? 'pending' : 'none',
      next_attempt_at: crossing.hasWebhook ? at : null,
    })
    .onConflict((oc) => oc.columns(['project_id', 'provider', 'threshold', 'epoch']).doNothing())
    .returning('id')
    .executeTakeFirst();
  return inserted !== undefined;
}

/** Finds and records new crossings; one warn line per crossing, across all instances. */
export async function detectCrossings(db: Db, log: FastifyBaseLogger, now = new Date()): Promise<number> {
  let recorded = 0;
  for (const crossing of await newCrossings(db)) {
    if (!(await recordCrossing(db, crossing, now))) continue;
    recorded++;
    log.warn(
      {
        project: crossing.slug,
        provider: crossing.provider,
        threshold: crossing.threshold,
        allocated: formatUsd(crossing.allocatedMicros),
        spent: formatUsd(crossing.spentMicros),
      },
      'budget alert: threshold crossed',
    );
  }
  return recorded;
}
