import { readFileSync } from 'node:fs';
import { ConfigError, type EnvMapping, loadConfig, sheddingConfigSchema, sheddingEnv } from '@app/http-kit';
import { type Static, Type } from 'typebox';
import { ACCESS_ENV, AccessConfigSchema } from './access/config.ts';
import { ROUTING_ENV, RoutingConfigSchema } from './routing/config.ts';
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
      Type.String({ description: 'Base URL clients use, printed at start and used in docs links' }),
    ),
    dataDir: Type.String({ default: './data', description: 'Embedded database, generated signing key' }),
    databaseUrl: Type.String({
      default: 'sqlite:./data/gateway.db',
      minLength: 1,
      description: 'sqlite:<path> (embedded) or postgres://user@host:port/db',
    }),
    redisUrl: Type.Optional(
      Type.String({
        pattern: '^rediss?://',
        description: 'Shared state across instances (stickiness); unset: in-process',
      }),
    ),
    redisKeyPrefix: Type.String({
      default: 'gw:',
      description: 'Prefix of every Redis key this gateway writes',
    }),
    logLevel: LogLevel,
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
  redisUrl: 'REDIS_URL',
  redisKeyPrefix: 'GATEWAY_REDIS_KEY_PREFIX',
  logLevel: 'GATEWAY_LOG_LEVEL',
  bodyLimitBytes: 'GATEWAY_BODY_LIMIT_BYTES',
  drainDeadlineMs: 'GATEWAY_DRAIN_DEADLINE_MS',
  ...sheddingEnv('GATEWAY'),
  ...prefixed('access', ACCESS_ENV),
  ...prefixed('routing', ROUTING_ENV),
  ...prefixed('upstream', UPSTREAM_ENV),
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
  return loadConfig(GatewayConfigSchema, {
    env,
    mapping: GATEWAY_ENV,
    ...(file ? { file } : {}),
    ...(options.overrides ? { overrides: options.overrides } : {}),
  });
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
