import {
  anchorDatabaseUrl,
  DATABASE_URL_FORMS,
  DATABASE_URL_PATTERN,
  SCHEMA_NAME_PATTERN,
  SCHEMA_NAME_FORM,
} from '@app/db';
import {
  type EnvMapping,
  LOG_FORMAT,
  loadConfig,
  PROJECT_ROOT,
  sheddingConfigSchema,
  sheddingEnv,
} from '@app/http-kit';
import { type Static, Type } from 'typebox';

export const EnergyConfigSchema = Type.Object(
  {
    host: Type.String({ default: '127.0.0.1' }),
    port: Type.Integer({ minimum: 0, maximum: 65535, default: 8081 }),
    publicUrl: Type.Optional(
      Type.String({
        pattern: '^https?://',
        expected: 'an http:// or https:// URL',
        description: 'Base URL used in Location headers and printed at start',
      }),
    ),
    databaseUrl: Type.String({
      default: 'sqlite:./data/energy.db',
      pattern: DATABASE_URL_PATTERN,
      expected: DATABASE_URL_FORMS,
      description:
        'sqlite:<path> (embedded; relative to the project directory) or postgres://user@host:port/db',
    }),
    databaseSchema: Type.String({
      default: 'energy',
      pattern: SCHEMA_NAME_PATTERN,
      expected: SCHEMA_NAME_FORM,
      description:
        "PostgreSQL schema of the energy service's tables and migrations (created if missing; unused on SQLite), so one database serves both services; tables an earlier version put in public stay there",
    }),
    logLevel: Type.Union(
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level)),
      { default: 'info' },
    ),
    logFormat: LOG_FORMAT,
    bodyLimitBytes: Type.Integer({ minimum: 1024, maximum: 64 * 1024 * 1024, default: 1024 * 1024 }),
    drainDeadlineMs: Type.Integer({ minimum: 0, default: 10_000 }),
    tokenCacheTtlMs: Type.Integer({
      minimum: 0,
      maximum: 60_000,
      default: 2_000,
      description:
        'How long a valid token is remembered without a database read, ms (0: no cache). A token retired by this process stops working at once; one retired by another process or energyctl, within this time',
    }),
    shedding: sheddingConfigSchema({ maxInFlight: 512 }),
  },
  { additionalProperties: false },
);

export type EnergyConfig = Static<typeof EnergyConfigSchema>;

export const ENERGY_ENV: EnvMapping = {
  host: 'ENERGY_HOST',
  port: 'ENERGY_PORT',
  publicUrl: 'ENERGY_PUBLIC_URL',
  databaseUrl: 'ENERGY_DATABASE_URL',
  databaseSchema: 'ENERGY_DATABASE_SCHEMA',
  logLevel: 'ENERGY_LOG_LEVEL',
  logFormat: 'ENERGY_LOG_FORMAT',
  bodyLimitBytes: 'ENERGY_BODY_LIMIT_BYTES',
  drainDeadlineMs: 'ENERGY_DRAIN_DEADLINE_MS',
  tokenCacheTtlMs: 'ENERGY_TOKEN_CACHE_TTL_MS',
  ...sheddingEnv('ENERGY'),
};

/** Reads the environment once, at start-up; everything else receives the frozen result. */
export function loadEnergyConfig(
  env: NodeJS.ProcessEnv,
  overrides: Partial<EnergyConfig> = {},
): EnergyConfig {
  return loadConfig(EnergyConfigSchema, {
    env,
    mapping: ENERGY_ENV,
    overrides,
    // A relative SQLite path is from the project directory, for the server and energyctl alike.
    finish: (config) => ({ ...config, databaseUrl: anchorDatabaseUrl(config.databaseUrl, PROJECT_ROOT) }),
  });
}
