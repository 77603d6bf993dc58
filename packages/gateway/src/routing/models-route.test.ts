import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { isolatedDatabase } from '@app/db/testing.ts';
import type { App } from '@app/http-kit';
import OpenAI from 'openai';
import { setAllocation } from '../access/admin.ts';
import { seedAccount } from '../access/testing.ts';
import { buildApp } from '../app.ts';
import { type GatewayConfig, loadGatewayConfig } from '../config.ts';
import type { GatewayDatabase } from '../db/schema.ts';
import { CircuitBreakers } from './breaker.ts';
import { buildCatalog } from './catalog.ts';
import { listModels } from './models-route.ts';
import {
  balance,
  bundledCatalog,
  bundledCatalogFile,
  bundledUpstreams,
  manualClock,
  SIMULATED_ENV,
  SIMULATOR_URL,
} from './testing.ts';
import { buildUpstreams } from './upstreams.ts';

interface ModelEntry {
  id: string;
  object: string;
  created: number;
  owned_by: string;
  alias_of?: string;
  aliases: string[];
  simulated: boolean;
  context_window: number;
  modifiers: Record<string, string[]>;
  capabilities: Record<string, boolean>;
  providers: { id: string; simulated: boolean; prices: Record<string, Record<string, number>> }[];
}

let app: App;
let config: GatewayConfig;
let token: string;
let close: () => Promise<void>;
let database: Awaited<ReturnType<typeof isolatedDatabase<GatewayDatabase>>>['database'];

before(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-models-'));
  const isolated = await isolatedDatabase<GatewayDatabase>('sqlite');
  database = isolated.database;
  config = loadGatewayConfig({}, { overrides: { dataDir, logLevel: 'silent' } });
  app = await buildApp(config, {
    database,
    simulatorUrl: SIMULATOR_URL,
    env: SIMULATED_ENV,
    defaultMetrics: false,
  });
  ({ token } = await seedAccount(database, {
    email: 'ada@example.com',
    projectSlug: 'apollo',
    allocations: { cloud_b: 5 },
    config,
  }));
  close = async () => {
    await app.close();
    await isolated.drop();
    rmSync(dataDir, { recursive: true, force: true });
  };
});
after(() => close());

async function list(): Promise<ModelEntry[]> {
  const response = await app.inject({ url: '/v1/models', headers: { authorization: `Bearer ${token}` } });
  assert.equal(response.statusCode, 200, response.body);
  const body = response.json() as { object: string; data: ModelEntry[] };
  assert.equal(body.object, 'list');
  return body.data;
}

test('lists only models with a provider this project has budget for, in OpenAI shape', async () => {
  const data = await list();
  assert.ok(data.length > 0);
  for (const entry of data) {
    assert.equal(entry.object, 'model');
    assert.equal(typeof entry.created, 'number');
    assert.deepEqual(
      entry.providers.map((p) => p.id),
      ['cloud_b'],
      entry.id,
    );
  }
  const owners = new Set(data.map((entry) => entry.owned_by));
  assert.deepEqual(
    [...owners].sort(),
    ['anthropic', 'google'],
    'no OpenAI model: no budget on developer/cloud_c',
  );
});

test('an exact version carries its aliases, accepted modifiers, prices, capabilities and the simulated flag', async () => {
  const data = await list();
  const sonnet = data.find((entry) => entry.id === 'claude-sonnet-4-6');
  assert.ok(sonnet);
  assert.deepEqual(sonnet.aliases, ['claude-sonnet']);
  assert.equal(sonnet.owned_by, 'anthropic');
  assert.equal(sonnet.created, Date.parse('2026-02-17T00:00:00Z') / 1000);
  assert.equal(sonnet.context_window, 1_000_000);
  assert.equal(sonnet.simulated, true);
  assert.deepEqual(sonnet.modifiers, {
    effort: ['none', 'minimal', 'low', 'medium', 'high', 'max'],
    tier: [],
    compression: ['nocompress', 'compact', 'compressed'],
  });
  assert.equal(sonnet.capabilities.web_search, true);
  assert.deepEqual(sonnet.providers[0]?.prices, {
    standard: {
      input_per_mtok: 3,
      cached_input_per_mtok: 0.3,
      output_per_mtok: 15,
      meters: {
        input: 3,
        cached_input: 0.3,
        cache_write_5m: 3.75,
        cache_write_1h: 6,
        output: 15,
        web_search_calls: 10,
      },
    },
  });
  const flash = data.find((entry) => entry.id === 'gemini-2.5-flash');
  assert.deepEqual(flash?.modifiers.tier, ['flex']);
  assert.equal(flash?.providers[0]?.prices.flex?.output_per_mtok, 1.25);
});

test('aliases are entries of their own pointing at the exact version', async () => {
  const data = await list();
  const alias = data.find((entry) => entry.id === 'claude-sonnet');
  assert.equal(alias?.alias_of, 'claude-sonnet-4-6');
  assert.equal(alias?.context_window, 1_000_000);
  assert.equal(data.find((entry) => entry.id === 'claude-sonnet-4-6')?.alias_of, undefined);
});

test('the list is computed live: a new allocation adds that provider at once', async () => {
  await setAllocation(database.db, { slug: 'apollo', provider: 'cloud_a', usd: 3 });
  const opus = (await list()).find((entry) => entry.id === 'claude-opus-4-8');
  assert.deepEqual(
    opus?.providers.map((p) => p.id),
    ['cloud_a', 'cloud_b'],
  );
  await setAllocation(database.db, { slug: 'apollo', provider: 'cloud_a', usd: 0 });
  const again = (await list()).find((entry) => entry.id === 'claude-opus-4-8');
  assert.deepEqual(
    again?.providers.map((p) => p.id),
    ['cloud_b'],
  );
});

test('without a token the list is 401 in the OpenAI error envelope', async () => {
  const response = await app.inject({ url: '/v1/models' });
  assert.equal(response.statusCode, 401);
  assert.equal(response.json().error.code, 'missing_token');
});

test('the OpenAI SDK lists the models through a listening gateway', async () => {
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  const client = new OpenAI({ baseURL: `${address}/v1`, apiKey: token, maxRetries: 0 });
  const ids: string[] = [];
  for await (const model of client.models.list()) ids.push(model.id);
  assert.ok(ids.includes('claude-haiku-4-5-20251001'));
  const retrieved = await client.models.retrieve('claude-sonnet');
  assert.equal(retrieved.id, 'claude-sonnet');
  await assert.rejects(client.models.retrieve('gpt-5.5'), OpenAI.NotFoundError);
  assert.ok(ids.includes('claude-haiku'));
  assert.ok(!ids.some((id) => id.startsWith('gpt-')));
});

test('GET /v1/models/{model} returns the listed entry for an exact id or an alias', async () => {
  const headers = { authorization: `Bearer ${token}` };
  const exact = await app.inject({ url: '/v1/models/claude-haiku-4-5-20251001', headers });
  assert.equal(exact.statusCode, 200);
  assert.equal(exact.json().id, 'claude-haiku-4-5-20251001');
  assert.equal(exact.json().alias_of, undefined);
  const alias = await app.inject({ url: '/v1/models/claude-haiku', headers });
  assert.equal(alias.json().alias_of, 'claude-haiku-4-5-20251001');
  assert.deepEqual(
    alias.json().providers.map((p: { id: string }) => p.id),
    ['cloud_b'],
  );
});

test('GET /v1/models/{model} is 404 model_not_found when unknown or not usable by this account', async () => {
  const headers = { authorization: `Bearer ${token}` };
  for (const name of ['gpt-9', 'gpt-5.5']) {
    const response = await app.inject({ url: `/v1/models/${name}`, headers });
    assert.equal(response.statusCode, 404, name);
    assert.equal(response.json().error.code, 'model_not_found');
  }
  assert.equal((await app.inject({ url: '/v1/models/claude-haiku' })).statusCode, 401);
});

test('the OpenAPI document describes GET /v1/models with bearer auth', async () => {
  const spec = (await app.inject({ url: '/openapi.json' })).json();
  const operation = spec.paths['/v1/models'].get;
  assert.deepEqual(operation.security, [{ bearerAuth: [] }]);
  assert.ok(operation.responses['200'].content['application/json'].schema.properties.data);
});

// ---- listModels without HTTP: circuits, real endpoints, empty buckets ----------------------

const catalog = bundledCatalog();

test('a provider whose circuit is open is not listed; half-open is listed again', () => {
  const clock = manualClock();
  const breakers = new CircuitBreakers({ failures: 1, cooldownMs: 1000, now: clock.now });
  const deps = { catalog, upstreams: bundledUpstreams(catalog), breakers };
  const balances = { developer: balance(10), cloud_c: balance(10) };
  // The bundled file declares one endpoint per vendor: each has its own circuit.
  breakers.record('cloud_c/openai', 'connection');
  const open = listModels(deps, balances).data.find((entry) => entry.id === 'gpt-5.5-2026-04-23');
  assert.deepEqual(
    open?.providers.map((p) => p.id),
    ['developer'],
  );
  breakers.record('developer/openai', 'timeout');
  const ids = listModels(deps, balances).data.map((entry) => entry.id);
  assert.ok(!ids.some((id) => id.startsWith('gpt')), 'no usable provider: no OpenAI model');
  assert.ok(ids.includes('claude-haiku'), "developer's Anthropic endpoint is still closed");
  clock.advance(1000);
  assert.ok(listModels(deps, balances).data.some((entry) => entry.id === 'gpt-5.5'));
});

test('a model on a real endpoint is not labelled simulated', () => {
  const local = {
    vendors: {
      openai: { adapter: 'openai', baseUrl: 'http://127.0.0.1:11434/v1' },
      anthropic: { adapter: 'anthropic', baseUrl: 'http://127.0.0.1:11435' },
      google: { adapter: 'gemini', baseUrl: 'http://127.0.0.1:11436/v1beta' },
    },
  };
  const vertex = { project: 'p', location: 'global', baseUrl: 'simulator/vertex/v1' };
  const providers = {
    developer: local,
    cloud_a: { default: { adapter: 'bedrock-converse', region: 'us-east-1', baseUrl: 'simulator/bedrock' } },
    cloud_b: {
      vendors: {
        anthropic: { adapter: 'vertex-claude', ...vertex },
        google: { adapter: 'vertex-gemini', ...vertex },
      },
    },
    cloud_c: { default: { adapter: 'azure-openai', baseUrl: 'simulator/azure/openai' } },
  };
  const { upstreams } = buildUpstreams({ providers }, { catalog, simulatorUrl: SIMULATOR_URL, env: {} });
  const breakers = new CircuitBreakers({ failures: 1, cooldownMs: 1000, now: Date.now });
  const data = listModels(
    { catalog, upstreams, breakers },
    { developer: balance(1), cloud_b: balance(1) },
  ).data;
  const haiku = data.find((entry) => entry.id === 'claude-haiku-4-5-20251001');
  assert.equal(haiku?.simulated, false, 'a real provider is usable');
  assert.deepEqual(
    haiku?.providers.map((p) => [p.id, p.simulated]),
    [
      ['developer', false],
      ['cloud_b', true],
    ],
  );
  const onlySimulated = listModels({ catalog, upstreams, breakers }, { cloud_b: balance(1) }).data;
  assert.equal(onlySimulated.find((entry) => entry.id === 'claude-haiku')?.simulated, true);
});

test('an empty bucket (remaining 0) hides its provider', () => {
  const breakers = new CircuitBreakers({ failures: 1, cooldownMs: 1000, now: Date.now });
  const data = listModels(
    { catalog, upstreams: bundledUpstreams(catalog), breakers },
    { developer: balance(0) },
  ).data;
  assert.deepEqual(data, []);
});

test('model-level modifiers are the union over usable providers, in the natural order', () => {
  const file = bundledCatalogFile();
  const opus = file.models.find((model) => model.id === 'claude-opus-4-8') as Record<string, unknown>;
  const offers = opus.providers as Record<string, Record<string, unknown>>;
  file.effortProfiles['none-high'] = {
    none: { kind: 'omit' },
    high: { kind: 'anthropic-adaptive', effort: 'high' },
  };
  file.effortProfiles['none-low'] = {
    none: { kind: 'omit' },
    low: { kind: 'anthropic-adaptive', effort: 'low' },
  };
  (offers.developer as Record<string, unknown>).effort = 'none-high';
  (offers.cloud_a as Record<string, unknown>).effort = 'none-low';
  const narrowed = buildCatalog(file);
  const breakers = new CircuitBreakers({ failures: 1, cooldownMs: 1000, now: Date.now });
  const deps = { catalog: narrowed, upstreams: bundledUpstreams(narrowed), breakers };
  const entry = listModels(deps, { developer: balance(1), cloud_a: balance(1) }).data.find(
    (model) => model.id === 'claude-opus-4-8',
  );
  assert.deepEqual(entry?.modifiers.effort, ['none', 'low', 'high']);
  assert.deepEqual(
    entry?.providers.map((p) => p.modifiers.effort),
    [
      ['none', 'high'],
      ['none', 'low'],
    ],
  );
});

test('embedding models are listed with their kind, dimensions and limits; chat entries are unchanged', async () => {
  const data = (await list()) as (ModelEntry & { kind?: string; embedding?: unknown })[];
  const gemini = data.find((entry) => entry.id === 'gemini-embedding-001');
  assert.ok(gemini, 'listed on cloud_b, where this project has budget');
  assert.equal(gemini.kind, 'embedding');
  assert.deepEqual(gemini.embedding, {
    dimensions: 3072,
    min_dimensions: 1,
    max_inputs: 2048,
    max_input_tokens: 2048,
  });
  assert.deepEqual(gemini.providers[0]?.prices, {
    // Priced on `input` only: no cached or output rate (those meters never occur).
    standard: { input_per_mtok: 0.15, cached_input_per_mtok: 0, output_per_mtok: 0, meters: { input: 0.15 } },
  });
  assert.deepEqual(
    data.find((entry) => entry.id === 'gemini-embedding')?.embedding,
    gemini.embedding,
    'its alias entry too',
  );
  for (const entry of data.filter((item) => !item.id.startsWith('gemini-embedding'))) {
    assert.equal('kind' in entry, false, entry.id);
    assert.equal('embedding' in entry, false, entry.id);
  }
});
