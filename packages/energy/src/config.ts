import { type EnvMapping, loadConfig, sheddingConfigSchema, sheddingEnv } from '@app/http-kit';
import { type Static, Type } from 'typebox';

export const EnergyConfigSchema = Type.Object(
  {
    host: Type.String({ default: '127.0.0.1' }),
    port: Type.Integer({ minimum: 0, maximum: 65535, default: 8081 }),
    publicUrl: Type.Optional(
      Type.String({ description: 'Base URL used in Location headers and printed at start' }),
    ),
    databaseUrl: Type.String({ default: 'sqlite:./data/energy.db', minLength: 1 }),
    logLevel: Type.Union(
      ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((level) => Type.Literal(level)),
      { default: 'info' },
    ),
    bodyLimitBytes: Type.Integer({ minimum: 1024, maximum: 64 * 1024 * 1024, default: 1024 * 1024 }),
    drainDeadlineMs: Type.Integer({ minimum: 0, default: 10_000 }),
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
  logLevel: 'ENERGY_LOG_LEVEL',
  bodyLimitBytes: 'ENERGY_BODY_LIMIT_BYTES',
  drainDeadlineMs: 'ENERGY_DRAIN_DEADLINE_MS',
  ...sheddingEnv('ENERGY'),
};

/** Reads the environment once, at start-up; everything else receives the frozen result. */
export function loadEnergyConfig(
  env: NodeJS.ProcessEnv,
  overrides: Partial<EnergyConfig> = {},
): EnergyConfig {
  return loadConfig(EnergyConfigSchema, { env, mapping: ENERGY_ENV, overrides });
}
