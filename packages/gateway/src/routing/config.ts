import type { EnvMapping } from '@app/http-kit';
import { type Static, Type } from 'typebox';

/** Configuration of the routing area (section `routing` of the gateway config). */
export const RoutingConfigSchema = Type.Object(
  {
    catalogPath: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'Model catalog JSON; default: the bundled catalog/models.json',
      }),
    ),
    upstreamsPath: Type.Optional(
      Type.String({
        minLength: 1,
        description: 'Upstreams JSON; default: the bundled catalog/upstreams.simulated.json',
      }),
    ),
    stickyIdleSeconds: Type.Integer({
      minimum: 1,
      default: 3600,
      description: 'A sticky provider choice expires after this long without use',
    }),
    stickyMaxEntries: Type.Integer({
      minimum: 1,
      default: 100_000,
      description:
        'Most sticky choices (users and agent sessions) kept in process; the least recently used go first',
    }),
    breakerFailures: Type.Integer({
      minimum: 1,
      default: 5,
      description: 'Consecutive server/timeout/connection failures that open a circuit',
    }),
    breakerCooldownMs: Type.Integer({
      minimum: 1,
      default: 30_000,
      description: 'How long an open circuit waits before one trial request (half-open)',
    }),
  },
  { additionalProperties: false, default: {} },
);

export type RoutingConfig = Static<typeof RoutingConfigSchema>;

/** Config path inside this section -> environment variable. */
export const ROUTING_ENV: EnvMapping = {
  catalogPath: 'GATEWAY_CATALOG_PATH',
  upstreamsPath: 'GATEWAY_UPSTREAMS_PATH',
  stickyIdleSeconds: 'GATEWAY_STICKY_IDLE_SECONDS',
  stickyMaxEntries: 'GATEWAY_STICKY_MAX_ENTRIES',
  breakerFailures: 'GATEWAY_BREAKER_FAILURES',
  breakerCooldownMs: 'GATEWAY_BREAKER_COOLDOWN_MS',
};
