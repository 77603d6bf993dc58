/**
 * The proof a shared limit needs: two gateway instances on one database and one Redis, hundreds
 * of parallel requests through HTTP, and exactly the limit admitted between them (a limiter that
 * read local memory would admit the limit once per instance).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, test } from 'node:test';
import { createRedis, openDatabase } from '@app/db';
import { isolatedDatabase, testRedis } from '@app/db/testing.ts';
import type { App } from '@app/http-kit';
import { type Simulator, startSimulator } from '@app/upstream-simulator';
import { setRateLimits } from '../access/admin.ts';
import { seedAccount } from '../access/testing.ts';
import { buildApp } from '../app.ts';
import { loadGatewayConfig } from '../config.ts';
import type { GatewayDatabase } from '../db/schema.ts';
import { ledgersSettled } from '../ledger/testing.ts';

const shared = testRedis();
const skip =
  'skip' in shared
    ? shared.skip
    : process.env.TEST_DATABASE_URL
      ? undefined
      : 'TEST_DATABASE_URL is not set: the two-instance rate limit test needs PostgreSQL';

let sim: Simulator;
let instances: App[] = [];
const tokens: string[] = [];
let database: Awaited<ReturnType<typeof isolatedDatabase<GatewayDatabase>>> | undefined;
let cleanup: () => Promise<void> = async () => {};

before(async () => {
  if (skip || !('redis' in shared)) return;
  sim = await startSimulator();
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-limits-'));
  const isolated = await isolatedDatabase<GatewayDatabase>('postgres');
  database = isolated;
  const config = loadGatewayConfig({}, { overrides: { dataDir, logLevel: 'silent' } });
  const second = await openDatabase<GatewayDatabase>(isolated.url, { schema: isolated.schema ?? '' });
  const secondRedis = createRedis(shared.url, { keyPrefix: shared.prefix });
  const build = (db: typeof second, redis: typeof secondRedis) =>
    buildApp(config, {
      database: db,
      redis,
      simulatorUrl: sim.url,
      env: sim.credentialEnv,
      defaultMetrics: false,
    });
  instances = [await build(isolated.database, shared.redis), await build(second, secondRedis)];
  for (const email of ['ada@example.com', 'bob@example.com'])
    tokens.push(
      (
        await seedAccount(isolated.database, {
          email,
          projectSlug: 'apollo',
          allocations: { developer: 50 },
          config,
        })
      ).token,
    );
  cleanup = async () => {
    for (const app of instances) await app.close();
    await second.close();
    secondRedis.disconnect();
    shared.redis.disconnect();
    await sim.close();
    await isolated.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
});
after(() => cleanup());

async function burst(count: number, extra: Record<string, unknown> = {}): Promise<number[]> {
  const requests = Array.from({ length: count }, (_, i) =>
    (instances[i % 2] as App).inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { authorization: `Bearer ${tokens[i % tokens.length]}` },
      payload: {
        model: 'gpt-5.4@developer',
        messages: [{ role: 'user', content: 'hi' }],
        max_tokens: 20,
        ...extra,
      },
    }),
  );
  return (await Promise.all(requests)).map((response) => response.statusCode);
}

async function limitProject(change: Parameters<typeof setRateLimits>[1]['change']): Promise<void> {
  assert.ok(database);
  await setRateLimits(database.database.db, { slug: 'apollo', scope: 'project', change });
  await sleep(1_050); // limits are read with the token state, cached up to 1 s
}

test(
  'two instances, 300 parallel requests from two tokens of one project: exactly the project limit admitted',
  { skip },
  async () => {
    assert.ok(database);
    await limitProject({ requestsPerMinute: 120 });
    const statuses = await burst(300);
    assert.equal(statuses.filter((status) => status === 200).length, 120);
    assert.equal(statuses.filter((status) => status === 429).length, 180);
    await ledgersSettled(); // rows are group-committed a few ms after their request ends
    const rows = await database.database.db.selectFrom('usage').select('id').execute();
    assert.equal(rows.length, 120, 'only admitted requests reserved budget');
  },
);

test(
  'two instances, concurrency limit: 100 parallel slow requests, exactly the limit admitted',
  { skip },
  async () => {
    await limitProject({ requestsPerMinute: null, concurrentRequests: 5 });
    // Each admitted request holds its slot for 1.5 s upstream, longer than the burst takes to arrive.
    const statuses = await burst(100, { x_simulator: { first_token_delay_ms: 1_500 } });
    assert.equal(statuses.filter((status) => status === 200).length, 5);
    assert.equal(statuses.filter((status) => status === 429).length, 95);
    // Every slot is given back: a next round is admitted again.
    assert.ok((await burst(5)).every((status) => status === 200));
  },
);
