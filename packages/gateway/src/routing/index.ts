import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { Redis } from '@app/db';
import type { FastifyBaseLogger, FastifyPluginAsync } from 'fastify';
import type { AccessControl, Ledger, ModelDirectory, Router } from '../contracts.ts';
import type { SecretRedactor } from '../upstream/credentials/index.ts';
import { type BreakerState, type ChangeCause, CircuitBreakers } from './breaker.ts';
import { buildCatalog, type Catalog, CatalogError } from './catalog.ts';
import type { RoutingConfig } from './config.ts';
import { type HealthBus, startHealthBus } from './health-bus.ts';
import { createModelDirectory } from './model-directory.ts';
import { modelsRoutes } from './models-route.ts';
import { createRouter } from './router.ts';
import { memoryStickyStore, redisStickyStore, resilientStickyStore } from './sticky-store.ts';
import { buildUpstreams } from './upstreams.ts';

export interface RoutingDeps {
  readonly config: RoutingConfig;
  readonly redis: Redis | undefined;
  readonly ledger: Ledger;
  readonly access: AccessControl;
  /** Simulator origin, substituted for upstreams whose baseUrl is `simulator[/path]`. */
  readonly simulatorUrl: string | undefined;
  readonly log: FastifyBaseLogger;
  /**
   * Environment for `env:NAME` secret locations in the upstreams file (main passes
   * process.env; tests pass what they need). Secrets are not config values: they never enter
   * the frozen config object or logs. Absent: no variables, so an `env:` location fails clearly.
   */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** Clock for model retirement, idle expiry and the breaker cooldown (tests inject one). */
  readonly now?: () => number;
  /** Told the secrets every endpoint's signer reads and obtains (the gateway's one redactor). */
  readonly secrets: SecretRedactor;
}

export interface Routing {
  readonly router: Router;
  /** GET /v1/models. */
  readonly routes: FastifyPluginAsync;
  /** The list GET /v1/models answers, for front doors listing in their own shape. */
  readonly models: ModelDirectory;
  close(): Promise<void>;
  /** The validated catalog (read-only), e.g. for the chat path's docs or tests. */
  readonly catalog: Catalog;
  /** Each configured endpoint's circuit as this instance sees it now (read at scrape time). */
  circuits(): ReadonlyArray<{ readonly endpoint: string; readonly state: BreakerState }>;
}

export const DEFAULT_CATALOG_PATH = fileURLToPath(new URL('../../catalog/models.json', import.meta.url));
export const DEFAULT_UPSTREAMS_PATH = fileURLToPath(
  new URL('../../catalog/upstreams.simulated.json', import.meta.url),
);

/** Reads a JSON data file; a parse error names the file and is thrown as a CatalogError. */
export function readJsonFile(path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new CatalogError(path, ['cannot be read']);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new CatalogError(path, [`not valid JSON: ${(error as Error).message}`]);
  }
}

/** Opening is a warning, or an error when the upstream refused the credentials; never logs a secret. */
function logChange(log: FastifyBaseLogger, upstream: string, state: 'open' | 'closed', cause: ChangeCause) {
  if (state === 'closed') {
    const by = cause === 'fleet' ? ' (closed by another instance)' : '';
    log.info({ upstream }, `upstream circuit closed: provider back in selection${by}`);
  } else if (cause === 'auth') {
    log.error(
      { upstream, fault: 'configuration' },
      `configuration fault: upstream ${upstream} refused the gateway's credentials (401/403); circuit opened, provider taken out of selection`,
    );
  } else {
    const by = cause === 'fleet' ? ' (opened by another instance)' : '';
    log.warn({ upstream }, `upstream circuit opened: provider taken out of selection${by}`);
  }
}

export async function createRouting(deps: RoutingDeps): Promise<Routing> {
  const now = deps.now ?? Date.now;
  const catalogPath = deps.config.catalogPath ?? DEFAULT_CATALOG_PATH;
  const upstreamsPath = deps.config.upstreamsPath ?? DEFAULT_UPSTREAMS_PATH;
  const catalog = buildCatalog(readJsonFile(catalogPath), catalogPath, { now });
  const { upstreams, warnings } = buildUpstreams(readJsonFile(upstreamsPath), {
    catalog,
    simulatorUrl: deps.simulatorUrl,
    env: deps.env ?? {},
    source: upstreamsPath,
    secrets: deps.secrets,
  });
  for (const warning of warnings) deps.log.warn(warning);
  deps.log.info(
    { catalog: catalogPath, upstreams: upstreamsPath, models: catalog.models.length },
    'model catalog loaded',
  );
  const idleMs = deps.config.stickyIdleSeconds * 1000;
  const sticky = deps.redis
    ? resilientStickyStore(redisStickyStore(deps.redis, { idleMs, now }), {
        warn: (err, message) => deps.log.warn({ err }, message),
        now,
      })
    : memoryStickyStore({ idleMs, now, maxEntries: deps.config.stickyMaxEntries });
  let bus: HealthBus | undefined;
  const breakers = new CircuitBreakers({
    failures: deps.config.breakerFailures,
    cooldownMs: deps.config.breakerCooldownMs,
    now,
    onChange: (upstream, state, cause) => logChange(deps.log, upstream, state, cause),
    onEvent: (event) => bus?.publish(event),
  });
  if (deps.redis)
    bus = await startHealthBus({
      redis: deps.redis,
      breakers,
      keys: upstreams.all().map((endpoint) => endpoint.key),
      cooldownMs: deps.config.breakerCooldownMs,
      now,
      log: deps.log,
    });
  const router = createRouter({ catalog, upstreams, breakers, sticky, ledger: deps.ledger });
  const endpointKeys = [...new Set(upstreams.all().map((endpoint) => endpoint.key))];
  return {
    router,
    catalog,
    circuits: () => endpointKeys.map((endpoint) => ({ endpoint, state: breakers.state(endpoint) })),
    routes: modelsRoutes({ catalog, upstreams, breakers, access: deps.access, ledger: deps.ledger }),
    models: createModelDirectory({ catalog, upstreams, breakers, ledger: deps.ledger }),
    close: async () => {
      await bus?.close();
      await sticky.close();
      await upstreams.close();
    },
  };
}
