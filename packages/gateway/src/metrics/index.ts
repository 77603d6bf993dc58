/**
 * The gateway's own Prometheus series beside the HTTP and process ones of http-kit: tokens and
 * cost per provider, model and project; upstream latency, time to first token and
 * failures per provider; circuit and bucket gauges read at scrape time. docs/gateway/metrics.md.
 */
import { type App, registryOf } from '@app/http-kit';
import type { FastifyBaseLogger } from 'fastify';
import type { ProjectBucketBalance } from '../ledger/ledger.ts';
import type { BreakerState } from '../routing/breaker.ts';
import type { CatalogModel } from '../routing/catalog.ts';
import { callMetrics } from './call-metrics.ts';
import type { MetricsConfig } from './config.ts';
import { modelLabels, ProjectLabels } from './labels.ts';
import { scrapeGauges } from './scrape-gauges.ts';

export interface GatewayMetricsDeps {
  readonly config: MetricsConfig;
  readonly models: readonly CatalogModel[];
  readonly circuits: () => ReadonlyArray<{ readonly endpoint: string; readonly state: BreakerState }>;
  readonly bucketBalances: () => Promise<readonly ProjectBucketBalance[]>;
  readonly log: FastifyBaseLogger;
}

/** The API routes are timed; pages, assets, docs and probes are only counted (see docs). */
export const timedRoute = (route: string): boolean => route.startsWith('/v1');

/** HTTP durations of an API answer, seconds: from a rejection in a millisecond to a long stream. */
export const HTTP_DURATION_BUCKETS = [0.01, 0.05, 0.25, 1, 5, 30, 300];

export function installGatewayMetrics(app: App, deps: GatewayMetricsDeps): void {
  const registry = registryOf(app);
  if (!registry) return;
  const projects = new ProjectLabels(deps.config.maxProjects);
  const record = callMetrics({ registry, projects, modelLabel: modelLabels(deps.models) });
  // Callback style: an async hook costs a promise per request.
  app.addHook('onResponse', (request, _reply, done) => {
    const call = request.gatewayCall;
    if (call !== null) record(call);
    done();
  });
  scrapeGauges({
    registry,
    projects,
    circuits: deps.circuits,
    bucketBalances: deps.bucketBalances,
    balanceTtlMs: deps.config.balanceTtlMs,
    log: deps.log,
  });
}
