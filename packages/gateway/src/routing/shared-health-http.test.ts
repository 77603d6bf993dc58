/**
 * The done-when of shared health (issue 22): two gateway instances on one PostgreSQL database and
 * one Redis, cloud_a's upstream failing with 500. Instance 1 is driven until its circuit opens;
 * instance 2, which never sent a request there, must stop offering cloud_a within a second.
 * Instance 2's view is read through GET /v1/models, which reads the breakers and calls no
 * upstream, so polling it cannot itself teach instance 2 anything.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createRedis, openDatabase } from '@app/db';
import { isolatedDatabase, testRedis } from '@app/db/testing.ts';
import type { App } from '@app/http-kit';
import { type Simulator, startSimulator } from '@app/upstream-simulator';
import { parseDictionary } from 'structured-headers';
import { seedAccount } from '../access/testing.ts';
import { buildApp } from '../app.ts';
import { loadGatewayConfig } from '../config.ts';
import type { GatewayDatabase } from '../db/schema.ts';
import { DEFAULT_UPSTREAMS_PATH, readJsonFile } from './index.ts';

const shared = testRedis();
const skip =
  'skip' in shared
    ? shared.skip
    : process.env.TEST_DATABASE_URL
      ? undefined
      : 'TEST_DATABASE_URL is not set: the two-instance shared health test needs PostgreSQL';

const FAILURES = 5;
let instances: App[] = [];
let failing: Simulator | undefined;
let token = '';
let cleanup: () => Promise<void> = async () => {};

/** The bundled upstreams, with cloud_a's Bedrock endpoint on `origin` (the failing simulator). */
function upstreamsWithFailingCloudA(dir: string, origin: string): string {
  const file = readJsonFile(DEFAULT_UPSTREAMS_PATH) as {
    providers: { cloud_a: { vendors: { anthropic: { baseUrl: string } } } };
  };
  file.providers.cloud_a.vendors.anthropic.baseUrl = `${origin}/bedrock`;
  const path = join(dir, 'upstreams.json');
  writeFileSync(path, JSON.stringify(file));
  return path;
}

before(async () => {
  if (skip || !('redis' in shared)) return;
  const sim = await startSimulator();
  // Same credentials, so the signature is accepted and the failure is the server's own.
  failing = await startSimulator({ credentials: sim.credentials, behaviour: { failStatus: 500 } });
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-health-'));
  const isolated = await isolatedDatabase<GatewayDatabase>('postgres');
  const config = loadGatewayConfig(
    {},
    {
      overrides: {
        dataDir,
        logLevel: 'silent',
        routing: {
          upstreamsPath: upstreamsWithFailingCloudA(dataDir, failing.url),
          breakerFailures: FAILURES,
          breakerCooldownMs: 60_000,
        },
      },
    },
  );
  const second = await openDatabase<GatewayDatabase>(isolated.url, { schema: isolated.schema ?? '' });
  const secondRedis = createRedis(shared.url, { keyPrefix: shared.prefix });
  const build = (database: typeof second, redis: typeof secondRedis) =>
    buildApp(config, {
      database,
      redis,
      simulatorUrl: sim.url,
      env: sim.credentialEnv,
      defaultMetrics: false,
    });
  instances = [await build(isolated.database, shared.redis), await build(second, secondRedis)];
  // cloud_a has the most budget: an instance that knew nothing would choose it.
  const seeded = await seedAccount(isolated.database, {
    email: 'ada@example.com',
    projectSlug: 'apollo',
    allocations: { cloud_a: 50, cloud_b: 5 },
    config,
  });
  token = seeded.token;
  cleanup = async () => {
    for (const app of instances) await app.close();
    await second.close();
    secondRedis.disconnect();
    shared.redis.disconnect();
    await sim.close();
    await failing?.close();
    await isolated.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
});
after(() => cleanup());

function chat(app: App | undefined, model: string) {
  assert.ok(app);
  return app.inject({
    method: 'POST',
    url: '/v1/chat/completions',
    headers: { authorization: `Bearer ${token}` },
    payload: { model, messages: [{ role: 'user', content: 'hello' }], max_tokens: 20 },
  });
}

/** The providers an instance offers for claude-haiku now (from its breakers, no upstream call). */
async function offered(app: App | undefined): Promise<string[]> {
  assert.ok(app);
  const response = await app.inject({
    url: '/v1/models/claude-haiku',
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal(response.statusCode, 200, response.body);
  return (response.json() as { providers: { id: string }[] }).providers.map((p) => p.id);
}

test(
  'the second instance stops sending to an endpoint within a second of the first opening its circuit',
  { skip },
  async () => {
    const [first, secondInstance] = instances;
    assert.ok(failing);
    assert.deepEqual(await offered(secondInstance), ['cloud_a', 'cloud_b']);
    for (let i = 0; i < FAILURES; i++) {
      const response = await chat(first, 'claude-haiku@cloud_a');
      assert.equal(response.statusCode, 502, response.body);
    }
    const opened = performance.now();
    assert.equal(failing.received.length, FAILURES, 'every failure came from the first instance');

    let polls = 0;
    while ((await offered(secondInstance)).includes('cloud_a')) {
      polls += 1;
      assert.ok(performance.now() - opened < 1_000, 'the second instance still offers cloud_a after 1 s');
      await sleep(5);
    }
    const delayMs = performance.now() - opened;
    console.log(
      `# second instance took cloud_a out ${delayMs.toFixed(1)} ms after the first opened (${polls} polls)`,
    );

    assert.equal((await chat(first, 'claude-haiku@cloud_a')).statusCode, 503, 'open on the first');
    const automatic = await chat(secondInstance, 'claude-haiku');
    assert.equal(automatic.statusCode, 200, automatic.body);
    const applied = parseDictionary(String(automatic.headers['x-gateway-applied']));
    assert.equal(
      String(applied.get('provider')?.[0]),
      'cloud_b',
      'routed away despite more budget on cloud_a',
    );
    const explicit = await chat(secondInstance, 'claude-haiku@cloud_a');
    assert.equal(explicit.statusCode, 503, explicit.body);
    assert.equal(explicit.json().error.code, 'provider_unavailable');
    assert.ok(Number(explicit.headers['retry-after']) > 50, 'with the rest of the cooldown');
    assert.equal(
      failing.received.length,
      FAILURES,
      'the second instance sent nothing to the failing upstream',
    );
  },
);
