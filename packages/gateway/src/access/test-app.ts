/** Shared set-up of the access area's HTTP tests: an app on an isolated database. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Database, type Engine, openDatabase } from '@app/db';
import { isolatedDatabase } from '@app/db/testing.ts';
import type { App } from '@app/http-kit';
import { buildApp } from '../app.ts';
import { type GatewayConfig, loadGatewayConfig } from '../config.ts';
import type { GatewayDatabase } from '../db/schema.ts';

export interface TestApp {
  readonly app: App;
  readonly config: GatewayConfig;
  readonly database: Database<GatewayDatabase>;
  /** For a second instance on the same database. */
  readonly url: string;
  readonly schema: string | undefined;
  close(): Promise<void>;
}

export async function startTestApp(engine: Engine, access: Record<string, unknown> = {}): Promise<TestApp> {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-access-'));
  const isolated = await isolatedDatabase<GatewayDatabase>(engine);
  const config = loadGatewayConfig({}, { overrides: { dataDir, logLevel: 'silent', access } });
  const app = await buildApp(config, { database: isolated.database, defaultMetrics: false });
  return {
    app,
    config,
    database: isolated.database,
    url: isolated.url,
    schema: isolated.schema,
    close: async () => {
      await app.close();
      await isolated.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Another gateway instance on the same database (own connection pool), same config and keys. */
export async function startSecondInstance(first: TestApp): Promise<{ app: App; close(): Promise<void> }> {
  const database = await openDatabase<GatewayDatabase>(
    first.url,
    first.schema ? { schema: first.schema } : {},
  );
  const app = await buildApp(first.config, { database, defaultMetrics: false });
  return {
    app,
    close: async () => {
      await app.close();
      await database.close();
    },
  };
}

export function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}
