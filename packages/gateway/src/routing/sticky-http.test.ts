import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { isolatedDatabase, testRedis } from '@app/db/testing.ts';
import type { App } from '@app/http-kit';
import { type Simulator, startSimulator } from '@app/upstream-simulator';
import { parseDictionary, Token } from 'structured-headers';
import { setAllocation } from '../access/admin.ts';
import { seedAccount } from '../access/testing.ts';
import { buildApp } from '../app.ts';
import { loadGatewayConfig } from '../config.ts';
import type { GatewayDatabase } from '../db/schema.ts';

const shared = testRedis();
const skip = 'skip' in shared ? shared.skip : undefined;

let sim: Simulator;
let instances: App[] = [];
let cleanup: () => Promise<void> = async () => {};

before(async () => {
  if (skip) return;
  sim = await startSimulator();
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-sticky-'));
  const isolated = await isolatedDatabase<GatewayDatabase>('sqlite');
  const config = loadGatewayConfig({}, { overrides: { dataDir, logLevel: 'silent' } });
  const redis = 'redis' in shared ? shared.redis : undefined;
  const build = (withRedis: boolean) =>
    buildApp(config, {
      database: isolated.database,
      simulatorUrl: sim.url,
      env: sim.credentialEnv,
      defaultMetrics: false,
      ...(withRedis && redis ? { redis } : {}),
    });
  // A and B share Redis (one key prefix); C keeps its choices in process.
  instances = [await build(true), await build(true), await build(false)];
  cleanup = async () => {
    for (const app of instances) await app.close();
    await sim.close();
    await isolated.drop();
    redis?.disconnect();
    rmSync(dataDir, { recursive: true, force: true });
  };
  const seed = (email: string) =>
    seedAccount(isolated.database, {
      email,
      projectSlug: 'apollo',
      allocations: { cloud_a: 5, cloud_b: 3 },
      config,
    });
  tokens.ada = (await seed('ada@example.com')).token;
  tokens.bob = (await seed('bob@example.com')).token;
  const cy = await seed('cy@example.com');
  tokens.cy = cy.token;
  cyUserKey = `sticky:${cy.principal.userId}:${cy.principal.projectId}:claude-haiku`;
  bump = () =>
    setAllocation(isolated.database.db, { slug: 'apollo', provider: 'cloud_b', usd: 50 }).then(() => {});
});
after(() => cleanup());

const tokens: Record<string, string> = {};
let cyUserKey = '';
let bump: () => Promise<void> = async () => {};

/** The provider the gateway used, from X-Gateway-Applied. */
async function providerUsed(
  app: App | undefined,
  token: string | undefined,
  session?: string,
): Promise<string> {
  assert.ok(app && token);
  const response = await app.inject({
    method: 'POST',
    url: '/v1/chat/completions',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      ...(session === undefined ? {} : { 'x-claude-code-session-id': session }),
    },
    payload: { model: 'claude-haiku', messages: [{ role: 'user', content: 'hello' }] },
  });
  assert.equal(response.statusCode, 200, response.body);
  const applied = parseDictionary(String(response.headers['x-gateway-applied']));
  const provider = applied.get('provider')?.[0];
  assert.ok(provider instanceof Token);
  return provider.toString();
}

test('two instances sharing Redis keep one provider per (user, project, family)', { skip }, async () => {
  const [a, b, c] = instances;
  assert.equal(await providerUsed(a, tokens.ada), 'cloud_a', 'most budget left');
  await bump();
  // cloud_b now has the most budget: a fresh choice would be cloud_b.
  assert.equal(await providerUsed(b, tokens.bob), 'cloud_b', 'fresh choice on B');
  assert.equal(await providerUsed(b, tokens.ada), 'cloud_a', "B keeps A's choice for ada through Redis");
  assert.equal(await providerUsed(a, tokens.bob), 'cloud_b', "A keeps B's choice for bob");
  assert.equal(
    await providerUsed(c, tokens.ada),
    'cloud_b',
    'an instance without the shared store chooses anew',
  );
});

test('two instances sharing Redis keep one provider per agent session', { skip }, async () => {
  const [a, b, c] = instances;
  // After the bump above, cloud_b has the most budget: the fresh choice for cy.
  assert.equal(await providerUsed(a, tokens.cy, 'session-1'), 'cloud_b', 'fresh choice on A');
  // cy's own choice moves to cloud_a (as another instance's failover would move it).
  assert.ok('redis' in shared);
  await shared.redis.set(cyUserKey, 'cloud_a', 'PX', 60_000);
  assert.equal(await providerUsed(b, tokens.cy), 'cloud_a', "B follows cy's choice");
  assert.equal(
    await providerUsed(b, tokens.cy, 'session-1'),
    'cloud_b',
    "B keeps A's choice for the session",
  );
  assert.equal(
    await providerUsed(a, tokens.cy, 'session-2'),
    'cloud_a',
    "a new session starts on cy's choice",
  );
  assert.equal(await providerUsed(b, tokens.cy, 'session-2'), 'cloud_a', "B keeps A's choice for session-2");
  assert.equal(
    await providerUsed(c, tokens.cy, 'session-2'),
    'cloud_b',
    'an instance without the shared store chooses anew (most budget), not cloud_a',
  );
});
