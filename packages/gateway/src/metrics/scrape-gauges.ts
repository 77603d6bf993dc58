/**
 * Gauges computed when Prometheus scrapes, not on the request path: the circuit of each
 * upstream endpoint (read from the breakers in memory) and what is left in each allocation
 * bucket (one database read per `balanceTtlMs` at most, whatever the scrape rate).
 */
import type { FastifyBaseLogger } from 'fastify';
import { Gauge, type Registry } from 'prom-client';
import type { ProjectBucketBalance } from '../ledger/ledger.ts';
import type { BreakerState } from '../routing/breaker.ts';
import type { ProjectLabels } from './labels.ts';

const STATE_VALUE: Readonly<Record<BreakerState, number>> = { closed: 0, 'half-open': 1, open: 2 };

export interface ScrapeGaugeDeps {
  readonly registry: Registry;
  readonly projects: ProjectLabels;
  readonly circuits: () => ReadonlyArray<{ readonly endpoint: string; readonly state: BreakerState }>;
  readonly bucketBalances: () => Promise<readonly ProjectBucketBalance[]>;
  readonly balanceTtlMs: number;
  readonly log: FastifyBaseLogger;
}

export function scrapeGauges(deps: ScrapeGaugeDeps): void {
  new Gauge({
    name: 'gateway_circuit_state',
    help: 'Circuit of each upstream endpoint as this instance sees it: 0 closed, 1 half-open, 2 open',
    labelNames: ['endpoint'] as const,
    registers: [deps.registry],
    collect() {
      for (const { endpoint, state } of deps.circuits()) this.set({ endpoint }, STATE_VALUE[state]);
    },
  });
  const balances = cachedBalances(deps);
  new Gauge({
    name: 'gateway_bucket_remaining_usd',
    help: 'US dollars left in each allocation bucket (project x provider), as this instance can still reserve them',
    labelNames: ['project', 'provider'] as const,
    registers: [deps.registry],
    async collect() {
      const rows = await balances();
      if (rows === undefined) return; // the read failed (logged): the last values stay
      this.reset();
      // Projects past the cap are summed into `other`.
      const sums = new Map<string, { project: string; provider: string; micros: number }>();
      for (const row of rows) {
        const project = deps.projects.of(row.projectSlug);
        const key = `${project}\u0000${row.provider}`;
        const sum = sums.get(key) ?? { project, provider: row.provider, micros: 0 };
        sum.micros += row.balance.remainingMicros;
        sums.set(key, sum);
      }
      for (const { project, provider, micros } of sums.values())
        this.set({ project, provider }, micros / 1_000_000);
    },
  });
}

/** The balances, read again only once `balanceTtlMs` has passed; concurrent scrapes share one read. */
function cachedBalances(deps: ScrapeGaugeDeps): () => Promise<readonly ProjectBucketBalance[] | undefined> {
  let readAt = -Infinity;
  let current: Promise<readonly ProjectBucketBalance[] | undefined> | undefined;
  return () => {
    const now = performance.now();
    if (current === undefined || now - readAt >= deps.balanceTtlMs) {
      readAt = now;
      current = deps.bucketBalances().catch((error: unknown) => {
        deps.log.warn({ err: error }, 'metrics: could not read the bucket balances');
        readAt = -Infinity; // the next scrape tries again
        return undefined;
      });
    }
    return current;
  };
}
