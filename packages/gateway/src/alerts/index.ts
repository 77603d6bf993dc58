/**
 * Budget alerts (docs/gateway/budget-alerts.md): every instance, every `checkMs`, records the
 * thresholds its buckets crossed (detect.ts) and sends the webhooks that are due (deliver.ts).
 * The database decides which instance does what, so any number of instances send one webhook
 * per crossing.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { Kysely } from 'kysely';
import type { GatewayDatabase } from '../db/schema.ts';
import type { AlertsConfig } from './config.ts';
import { createDeliverer } from './deliver.ts';
import { detectCrossings } from './detect.ts';

export interface BudgetAlerts {
  /** One round now: detection, then delivery of what is due. */
  check(): Promise<void>;
  close(): Promise<void>;
}

export function startBudgetAlerts(deps: {
  db: Kysely<GatewayDatabase>;
  log: FastifyBaseLogger;
  config: AlertsConfig;
}): BudgetAlerts {
  const { db, log, config } = deps;
  const deliverer = createDeliverer({ db, log, options: config });
  let round: Promise<void> | undefined;
  const check = () => {
    // A round that outlasts the interval (a slow receiver) is joined, not doubled.
    round ??= (async () => {
      await detectCrossings(db, log);
      await deliverer.deliverDue();
    })().finally(() => {
      round = undefined;
    });
    return round;
  };
  const timer = setInterval(() => {
    check().catch((error: unknown) => log.warn({ err: error }, 'budget alert check failed'));
  }, config.checkMs);
  timer.unref();
  return {
    check,
    // Without waiting for a slow receiver: the attempt is aborted, recorded and retried later.
    close: async () => {
      clearInterval(timer);
      await deliverer.close();
      await round?.catch(() => {});
    },
  };
}
