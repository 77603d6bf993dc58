import type { EnvMapping } from '@app/http-kit';
import { type Static, Type } from 'typebox';

/** Configuration of the gateway's own Prometheus series (section `metrics`; docs/gateway/metrics.md). */
export const MetricsConfigSchema = Type.Object(
  {
    maxProjects: Type.Integer({
      minimum: 1,
      maximum: 10_000,
      default: 100,
      description:
        'Projects that keep their own `project` label on /metrics (the first seen); the others are counted as `other`',
    }),
    balanceTtlMs: Type.Integer({
      minimum: 0,
      maximum: 3_600_000,
      default: 15_000,
      description:
        'How long a scrape reuses the bucket balances it read (one database query per period, not per scrape)',
    }),
  },
  { additionalProperties: false, default: {} },
);

export type MetricsConfig = Static<typeof MetricsConfigSchema>;

export const METRICS_ENV: EnvMapping = {
  maxProjects: 'GATEWAY_METRICS_MAX_PROJECTS',
  balanceTtlMs: 'GATEWAY_METRICS_BALANCE_TTL_MS',
};
