import { readFileSync } from 'node:fs';
import {
  anchorDatabaseUrl,
  DATABASE_URL_FORMS,
  DATABASE_URL_PATTERN,
  SCHEMA_NAME_PATTERN,
  SCHEMA_NAME_FORM,
} from '@app/db';
import {
  ConfigError,
  type EnvMapping,
  fromProjectRoot,
  LOG_FORMAT,
  loadConfig,
  PROJECT_ROOT,
  sheddingConfigSchema,
  sheddingEnv,
} from '@app/http-kit';
import { type Static, Type } from 'typebox';
import { ACCESS_ENV, AccessConfigSchema, accessConfigProblems } from './access/config.ts';
import { ALERTS_ENV, AlertsConfigSchema } from './alerts/config.ts';
import { COMPRESSION_ENV, CompressionConfigSchema } from './compression/config.ts';
import { DASHBOARD_ENV, DashboardConfigSchema, dashboardConfigProblems } from './dashboard/config.ts';
import { METRICS_ENV, MetricsConfigSchema } from './metrics/config.ts';
import { ROUTING_ENV, RoutingConfigSchema } from './routing/config.ts';
import { TELEMETRY_ENV, TelemetryConfigSchema } from './telemetry/config.ts';
import { UPSTREAM_ENV, UpstreamConfigSchema } from './upstream/config.ts';

const LogLevel = Type.Union(
  ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level)),
  { default: 'info', description: 'pino log level' },
);

/** One schema for the whole gateway; each area owns its section in its own folder. */
export const GatewayConfigSchema = Type.Object(
  {
    host: Type.String({
      default: '127.0.0.1',
      description: 'Interface to listen on (0.0.0.0 or :: for all)',
    }),
    port: Type.Integer({
      minimum: 0,
      maximum: 65535,
      default: 8080,
      description: 'TCP port (0 picks a free port)',
    }),
    publicUrl: Type.Optional(
      Type.String({
        pattern: '^https?://',
        expected: 'an http:// or https:// URL',
        description: 'Base URL clients use, printed at start and used in docs links',
      }),
    ),
    dataDir: Type.String({
      default: './data',
      minLength: 1,
      description: 'Generated signing key; a relative path is from the project directory',
    }),
    databaseUrl: Type.String({
      default: 'sqlite:./data/gateway.db',
      pattern: DATABASE_URL_PATTERN,
      expected: DATABASE_URL_FORMS,
      description:
        'sqlite:<path> (embedded; relative to the project directory) or postgres://user@host:port/db',
    }),
    databaseSchema: Type.String({
      default: 'gateway',
      pattern: SCHEMA_NAME_PATTERN,
      expected: SCHEMA_NAME_FORM,
      description:
        "PostgreSQL schema of the gateway's tables and migrations (created if missing; unused on SQLite), so one database serves both services; tables an earlier version put in public stay there",
    }),
    redisUrl: Type.Optional(
      Type.String({
        pattern: '^rediss?://',
        expected: 'a redis:// or rediss:// URL',
        description:
          'Shared state across instances (stickiness, rate limits, circuit health); unset: in-process',
      }),
    ),
    redisKeyPrefix: Type.String({
      default: 'gw:',
      description: 'Prefix of every Redis key this gateway writes',
    }),
    logLevel: LogLevel,
    logFormat: LOG_FORMAT,
    bodyLimitBytes: Type.Integer({
      minimum: 1024,
      maximum: 256 * 1024 * 1024,
      default: 16 * 1024 * 1024,
      description: 'Largest request body accepted (413 above)',
    }),
    drainDeadlineMs: Type.Integer({
      minimum: 0,
      default: 30_000,
      description: 'On SIGTERM, how long in-flight requests and streams may finish',
    }),
    shedding: sheddingConfigSchema({ maxInFlight: 2048 }),
    access: AccessConfigSchema,
    routing: RoutingConfigSchema,
    upstream: UpstreamConfigSchema,
    dashboard: DashboardConfigSchema,
    compression: CompressionConfigSchema,
    telemetry: TelemetryConfigSchema,
    alerts: AlertsConfigSchema,
    metrics: MetricsConfigSchema,
  },
  { additionalProperties: false },
);

export type GatewayConfig = Static<typeof GatewayConfigSchema>;

function prefixed(section: string, mapping: EnvMapping): EnvMapping {
  return Object.fromEntries(
    Object.entries(mapping).map(([path, variable]) => [`${section}.${path}`, variable]),
  );
}

export const GATEWAY_ENV: EnvMapping = {
  host: 'GATEWAY_HOST',
  port: 'GATEWAY_PORT',
  publicUrl: 'GATEWAY_PUBLIC_URL',
  dataDir: 'GATEWAY_DATA_DIR',
  databaseUrl: 'GATEWAY_DATABASE_URL',
  databaseSchema: 'GATEWAY_DATABASE_SCHEMA',
  redisUrl: 'REDIS_URL',
  redisKeyPrefix: 'GATEWAY_REDIS_KEY_PREFIX',
  logLevel: 'GATEWAY_LOG_LEVEL',
  logFormat: 'GATEWAY_LOG_FORMAT',
  bodyLimitBytes: 'GATEWAY_BODY_LIMIT_BYTES',
  drainDeadlineMs: 'GATEWAY_DRAIN_DEADLINE_MS',
  ...sheddingEnv('GATEWAY'),
  ...prefixed('access', ACCESS_ENV),
  ...prefixed('routing', ROUTING_ENV),
  ...prefixed('upstream', UPSTREAM_ENV),
  ...prefixed('dashboard', DASHBOARD_ENV),
  ...prefixed('compression', COMPRESSION_ENV),
  ...prefixed('telemetry', TELEMETRY_ENV),
  ...prefixed('alerts', ALERTS_ENV),
  ...prefixed('metrics', METRICS_ENV),
};

/**
 * Reads the environment once at start-up, on top of an optional JSON config file (same
 * structure as the schema) named by GATEWAY_CONFIG_FILE; environment variables win over the
 * file. Tests pass `overrides` instead of touching process.env.
 */
export function loadGatewayConfig(
  env: NodeJS.ProcessEnv,
  options: { file?: Record<string, unknown>; overrides?: Record<string, unknown> } = {},
): GatewayConfig {
  const file = options.file ?? readConfigFile(env.GATEWAY_CONFIG_FILE);
  const config = loadConfig(GatewayConfigSchema, {
    env,
    mapping: GATEWAY_ENV,
    ...(file ? { file } : {}),
    ...(options.overrides ? { overrides: options.overrides } : {}),
    finish: anchorPaths,
  });
  const problems = [...accessConfigProblems(config.access), ...dashboardConfigProblems(config)];
  if (problems.length > 0) throw new ConfigError(problems);
  return config;
}

/**
 * Relative paths are from the project directory, not the current one: `gatewayctl` run from a
 * subdirectory opens the same database and signing key as the server.
 */
function anchorPaths(config: GatewayConfig): GatewayConfig {
  const { signingKeyPath } = config.access;
  const { catalogPath, upstreamsPath } = config.routing;
  return {
    ...config,
    dataDir: fromProjectRoot(config.dataDir),
    databaseUrl: anchorDatabaseUrl(config.databaseUrl, PROJECT_ROOT),
    access: {
      ...config.access,
      ...(signingKeyPath ? { signingKeyPath: fromProjectRoot(signingKeyPath) } : {}),
    },
    routing: {
      ...config.routing,
      ...(catalogPath ? { catalogPath: fromProjectRoot(catalogPath) } : {}),
      ...(upstreamsPath ? { upstreamsPath: fromProjectRoot(upstreamsPath) } : {}),
    },
  };
}

function readConfigFile(path: string | undefined): Record<string, unknown> | undefined {
  if (!path) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    const reason = error instanceof SyntaxError ? `not valid JSON (${error.message})` : 'cannot be read';
    throw new ConfigError([`GATEWAY_CONFIG_FILE: ${path} ${reason}`]);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new ConfigError([`GATEWAY_CONFIG_FILE: ${path} must hold a JSON object`]);
  }
  return parsed as Record<string, unknown>;
}
