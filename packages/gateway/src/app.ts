import { createRedis, type Database, openServiceDatabase, type Redis } from '@app/db';
import { type App, createServer, registryOf } from '@app/http-kit';
import { Counter } from 'prom-client';
import { createAccess } from './access/index.ts';
import { startBudgetAlerts } from './alerts/index.ts';
import { ADMIN_API_PREFIX, ADMIN_KEY_AUTH, adminApiRoutes } from './admin-api/index.ts';
import { embeddingsRoutes, FRONT_DOORS, frontDoorRoutes } from './front-doors/index.ts';
import type { GatewayConfig } from './config.ts';
import { mountWeb } from './dashboard/mount.ts';
import { GATEWAY_DATABASE } from './db/database.ts';
import type { GatewayDatabase } from './db/schema.ts';
import { renderGatewayError } from './error-format.ts';
import { gatewayErrorFromFramework } from './errors.ts';
import { createAdmission } from './pipeline/admission.ts';
import { createRateLimiter } from './limits/index.ts';
import { HTTP_DURATION_BUCKETS, installGatewayMetrics, timedRoute } from './metrics/index.ts';
import { decorateCallContext } from './pipeline/call-context.ts';
import { gatewayRequestLogFields } from './request-log.ts';
import { createRouting } from './routing/index.ts';
import { createTracing } from './telemetry/tracing.ts';
import { createUpstream, SecretRedactor } from './upstream/index.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** Where this service's data is, without credentials (printed at start-up). */
    databaseLabel: string;
  }
}

/** The security scheme, with how to get a token (what /docs shows under Authorize). */
const BEARER_AUTH = {
  type: 'http',
  scheme: 'bearer',
  bearerFormat: 'JWT',
  description: [
    'A personal access token of an approved project member, sent as `Authorization: Bearer <token>`',
    '(paste the token alone under Authorize). On the embedded default the first start creates a demo',
    'account and prints a token; an operator issues more with',
    '`npx gatewayctl tokens issue --email <email> --project <project>` (default lifetime 7 days).',
    '`GET /v1/account` shows whose token it is and what is left of each allocation.',
  ].join(' '),
};

/** Gemini clients' ways of sending the same token (the Gemini routes only; docs/gateway/gemini-api.md). */
const GEMINI_API_KEY = {
  type: 'apiKey',
  in: 'header',
  name: 'x-goog-api-key',
  description:
    'The personal access token as Gemini clients send an API key (GEMINI_API_KEY). Gemini routes only.',
};
const GEMINI_KEY_QUERY = {
  type: 'apiKey',
  in: 'query',
  name: 'key',
  description:
    'The personal access token as the `key` query parameter (redacted from logs). Gemini routes only.',
};

export interface BuildOptions {
  /** An already-open database (tests share one between app instances); otherwise config.databaseUrl. */
  readonly database?: Database<GatewayDatabase>;
  /** An already-open Redis client (tests pass one with their own key prefix). */
  readonly redis?: Redis;
  /** Origin of a running upstream simulator, substituted for upstreams whose baseUrl is `simulator[/path]`. */
  readonly simulatorUrl?: string;
  /** Where `env:NAME` secret locations in the upstreams file are read (main passes process.env). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  readonly logStream?: NodeJS.WritableStream;
  readonly defaultMetrics?: boolean;
  /** Clock of the routing area: model retirement, stickiness, circuit breakers (tests set one). */
  readonly now?: () => number;
}

/** Builds the gateway: migrations run, areas composed, routes registered, nothing listening yet. */
export async function buildApp(config: GatewayConfig, options: BuildOptions = {}): Promise<App> {
  const database = await openServiceDatabase<GatewayDatabase>(
    GATEWAY_DATABASE,
    config,
    options.database ? { database: options.database } : {},
  );
  const redis =
    options.redis ??
    (config.redisUrl ? createRedis(config.redisUrl, { keyPrefix: config.redisKeyPrefix }) : undefined);
  // Undefined unless an OTLP endpoint is configured (docs/gateway/tracing.md).
  const tracing = createTracing(config.telemetry);
  const app = await createServer({
    service: 'gateway',
    log: { level: config.logLevel, format: config.logFormat },
    bodyLimitBytes: config.bodyLimitBytes,
    shedding: config.shedding,
    defaultMetrics: options.defaultMetrics ?? true,
    httpMetrics: { timedRoute, durationBuckets: HTTP_DURATION_BUCKETS },
    ...(options.logStream ? { logStream: options.logStream } : {}),
    ready: () => database.ping(),
    requestLogFields: tracing ? tracing.logFields(gatewayRequestLogFields) : gatewayRequestLogFields,
    openapi: {
      title: 'Model gateway',
      version: '1.0.0',
      description:
        'OpenAI-compatible gateway to four model providers: chat (Chat Completions, Messages, Responses, the Gemini API) and embeddings (POST /v1/embeddings). Authenticate with a personal access token; the admin API (/admin/v1) with an admin key.',
      securitySchemes: {
        bearerAuth: BEARER_AUTH,
        geminiApiKey: GEMINI_API_KEY,
        geminiKeyQuery: GEMINI_KEY_QUERY,
        adminKey: ADMIN_KEY_AUTH,
      },
    },
    errors: {
      fromFramework: (kind, message, request, param) =>
        gatewayErrorFromFramework(kind, message, request.method, request.url.split('?')[0] ?? '/', param),
      render: renderGatewayError,
    },
  });
  decorateCallContext(app);
  // A burst of new requests is spread over loop turns (pipeline/admission.ts, 5 ms each).
  const admission = createAdmission({ budgetMs: 5 });
  app.addHook('onRequest', (_request, _reply, done) => admission.admit(done));
  app.decorate('databaseLabel', database.label);
  if (database.legacyNotice) app.log.warn(database.legacyNotice);
  // Everything opened from here on is closed with the app, also when start-up fails half-way.
  const closers: Array<() => Promise<void>> = [];
  app.addHook('onClose', async () => {
    for (const close of closers.reverse()) await close();
    if (!options.redis) redis?.disconnect();
    if (!options.database) await database.close();
    await tracing?.close();
  });
  try {
    const access = await createAccess({
      config: config.access,
      dataDir: config.dataDir,
      database,
      redis,
      log: app.log,
    });
    closers.push(() => access.close());
    const alerts = startBudgetAlerts({ db: database.db, log: app.log, config: config.alerts });
    closers.push(() => alerts.close());
    // One for the process: every signer tells it its secrets and tokens, and upstream error
    // text is cleared of them before a client or a log line sees it.
    const secrets = new SecretRedactor();
    const routing = await createRouting({
      config: config.routing,
      redis,
      ledger: access.ledger,
      access: access.control,
      simulatorUrl: options.simulatorUrl,
      env: options.env ?? {},
      log: app.log,
      secrets,
      ...(options.now ? { now: options.now } : {}),
    });
    closers.push(() => routing.close());
    const upstream = await createUpstream({ config: config.upstream, log: app.log, secrets });
    closers.push(() => upstream.close());
    await app.register(access.routes);
    await app.register(
      adminApiRoutes({ db: database.db, authenticate: access.authenticateAdmin, tokens: access.tokens }),
      { prefix: ADMIN_API_PREFIX },
    );
    await app.register(routing.routes);
    installGatewayMetrics(app, {
      config: config.metrics,
      models: routing.catalog.models,
      circuits: routing.circuits,
      bucketBalances: access.bucketBalances,
      log: app.log,
    });
    const anomalies = usageAnomalyCounter(app);
    const limiterErrors = counter(
      app,
      'gateway_rate_limit_store_errors_total',
      'Rate limit checks admitted without limits because Redis failed',
    );
    const limiter = createRateLimiter({
      redis,
      // A dead instance's concurrency slots free once its longest request would have ended.
      leaseMs: Math.max(config.upstream.requestDeadlineMs, config.upstream.flexRequestDeadlineMs) + 60_000,
      log: app.log,
      onStoreError: () => limiterErrors?.inc(),
    });
    closers.push(() => limiter.close());
    const frontDoorDeps = {
      access: access.control,
      ledger: access.ledger,
      router: routing.router,
      upstream,
      limiter,
      onUsageAnomaly: (provider: string) => anomalies?.inc({ provider }),
      compression: config.compression,
      models: routing.models,
      tracing,
    };
    for (const door of FRONT_DOORS) await app.register(frontDoorRoutes(door, frontDoorDeps));
    await app.register(embeddingsRoutes(frontDoorDeps));
    // Landing page, account dashboard, development identity provider (docs/gateway/dashboard.md).
    await mountWeb(app, {
      config,
      db: database.db,
      tokens: access.tokens,
      ledger: access.ledger,
      env: options.env ?? {},
      redis,
    });
  } catch (error) {
    await app.close();
    throw error;
  }
  return app;
}

function counter(app: App, name: string, help: string): Counter | undefined {
  const registry = registryOf(app);
  return registry ? new Counter({ name, help, registers: [registry] }) : undefined;
}

/** Upstream usage figures charged at the bound of what the request could produce. */
function usageAnomalyCounter(app: App): Counter<'provider'> | undefined {
  const registry = registryOf(app);
  if (!registry) return undefined;
  return new Counter({
    name: 'gateway_usage_anomalies_total',
    help: 'Upstream usage figures beyond what the request could produce, charged at the bound, by provider',
    labelNames: ['provider'] as const,
    registers: [registry],
  });
}
