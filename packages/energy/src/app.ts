import { type Database, migrateToLatest, openDatabase } from '@app/db';
import { type App, createServer } from '@app/http-kit';
import type { EnergyConfig } from './config.ts';
import { energyMigrations } from './db/migrations.ts';
import type { EnergyDatabase } from './db/schema.ts';
import { energyErrorFromFramework } from './errors.ts';

export interface BuildOptions {
  /** An already-open database (tests share one across app instances); otherwise config.databaseUrl. */
  readonly database?: Database<EnergyDatabase>;
  readonly logStream?: NodeJS.WritableStream;
  readonly defaultMetrics?: boolean;
}

/** Builds the energy asset service: migrations run, routes registered, nothing listening yet. */
export async function buildApp(config: EnergyConfig, options: BuildOptions = {}): Promise<App> {
  const database = options.database ?? (await openDatabase<EnergyDatabase>(config.databaseUrl));
  await migrateToLatest(database.db, energyMigrations);
  const app = await createServer({
    service: 'energy',
    log: { level: config.logLevel },
    bodyLimitBytes: config.bodyLimitBytes,
    defaultMetrics: options.defaultMetrics ?? true,
    ...(options.logStream ? { logStream: options.logStream } : {}),
    ready: () => database.ping(),
    openapi: {
      title: 'Energy asset service',
      version: '1.0.0',
      description: 'Operations of buildings, fan controls and roof types, in JSON and XML.',
    },
    errors: {
      fromFramework: (kind, message) => energyErrorFromFramework(kind, message),
      render: (error, _request, reply) =>
        reply
          .type('application/json; charset=utf-8')
          .send({ error: { code: error.code, message: error.message } }),
    },
  });
  if (!options.database) app.addHook('onClose', async () => database.close());
  return app;
}
