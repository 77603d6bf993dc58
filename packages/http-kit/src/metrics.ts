import type { FastifyInstance } from 'fastify';
import { Counter, collectDefaultMetrics, Histogram, Registry } from 'prom-client';

const registries = new WeakMap<FastifyInstance, Registry>();

/** The app's own metrics registry, for a service's domain metrics beside the kit's. */
export function registryOf(app: FastifyInstance): Registry | undefined {
  return registries.get(app);
}

/**
 * One registry per app instance (not prom-client's global one) so that several apps in one
 * process, as in tests, keep separate counters.
 */
export interface HttpMetricsOptions {
  /**
   * Which route patterns the duration histogram times (default: every one). Each timed
   * route costs a series per bucket and status in every scrape: a service times its API and
   * only counts its pages and assets.
   */
  readonly timedRoute?: (route: string) => boolean;
  /** Bucket bounds of the duration histogram, seconds. */
  readonly durationBuckets?: readonly number[];
}

const DEFAULT_BUCKETS = [
  0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
];

export function installMetrics(
  app: FastifyInstance,
  options: { prefix: string; defaultMetrics: boolean } & HttpMetricsOptions,
): Registry {
  const registry = new Registry();
  registries.set(app, registry);
  if (options.defaultMetrics) collectDefaultMetrics({ register: registry, prefix: `${options.prefix}_` });
  const requests = new Counter({
    name: `${options.prefix}_http_requests_total`,
    help: 'HTTP requests answered, by route pattern, method and status code',
    labelNames: ['method', 'route', 'status'] as const,
    registers: [registry],
  });
  const duration = new Histogram({
    name: `${options.prefix}_http_request_duration_seconds`,
    help: 'Time from request received to response sent, by route pattern, method and status code',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [...(options.durationBuckets ?? DEFAULT_BUCKETS)],
    registers: [registry],
  });
  const timed = options.timedRoute ?? (() => true);
  // Callback style: an async hook costs a promise per request.
  app.addHook('onResponse', (request, reply, done) => {
    // Route patterns, never raw URLs, keep label cardinality bounded.
    const route = request.routeOptions.url ?? 'unmatched';
    const labels = { method: request.method, route, status: String(reply.statusCode) };
    requests.inc(labels);
    if (timed(route)) duration.observe(labels, reply.elapsedTime / 1000);
    done();
  });
  app.get('/metrics', { schema: { hide: true } }, async (_request, reply) => {
    reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
  return registry;
}
