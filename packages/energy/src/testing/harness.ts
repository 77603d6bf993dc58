import type { Engine } from '@app/db';
import { isolatedDatabase } from '@app/db/testing.ts';
import type { App } from '@app/http-kit';
import type { Kysely } from 'kysely';
import { buildApp } from '../app.ts';
import { createUser } from '../auth/credentials.ts';
import { type EnergyConfig, loadEnergyConfig } from '../config.ts';
import type { EnergyDatabase } from '../db/schema.ts';

export interface Harness {
  readonly app: App;
  readonly db: Kysely<EnergyDatabase>;
  /** Creates a user and returns its id and token. */
  user(email?: string): Promise<{ userId: number; token: string }>;
  close(): Promise<void>;
}

let counter = 0;

/** An app on a fresh database of the given engine, with quiet logs, for `app.inject()` tests. */
export async function energyHarness(engine: Engine, overrides: Partial<EnergyConfig> = {}): Promise<Harness> {
  const isolated = await isolatedDatabase<EnergyDatabase>(engine);
  const database = isolated.database;
  // Quiet logs; the env mapping reads them like the real service would.
  const config = loadEnergyConfig(
    { ENERGY_LOG_LEVEL: 'silent' },
    { databaseUrl: isolated.url, ...overrides },
  );
  const app = await buildApp(config, { database, defaultMetrics: false });
  return {
    app,
    db: database.db,
    async user(email) {
      counter += 1;
      const credentials = await createUser(database.db, email ?? `user${counter}@example.com`, 'password123');
      return { userId: credentials.user_id, token: credentials.token };
    },
    async close() {
      await app.close();
      await isolated.drop();
    },
  };
}

/** Pins a record's timestamps so golden bodies can be compared literally. */
export async function pinTimestamps(
  db: Kysely<EnergyDatabase>,
  table: 'operations' | 'buildings' | 'elevators',
  stamp = '2013-07-26T16:09:43.000Z',
): Promise<void> {
  await db.updateTable(table).set({ created_at: stamp, updated_at: stamp }).execute();
}
