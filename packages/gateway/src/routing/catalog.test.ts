import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildCatalog } from './catalog.ts';
import { bundledCatalog, bundledCatalogFile, catalogProblems as problemsOf } from './testing.ts';

type Json = Record<string, unknown>;
const modelIndex = (file: ReturnType<typeof bundledCatalogFile>, id: string) =>
  file.models.findIndex((model) => model.id === id);

test('the bundled catalog loads with OpenAI, Anthropic and Google models', () => {
  const catalog = bundledCatalog();
  const chat = catalog.models.filter((model) => model.kind === 'chat');
  const vendors = new Set(chat.map((model) => model.vendor));
  assert.deepEqual([...vendors].sort(), ['anthropic', 'google', 'openai']);
  assert.ok(chat.length >= 12);
});

test('embedding models of OpenAI, Google, Amazon and Cohere, priced per input token only', () => {
  const embedding = bundledCatalog().models.filter((model) => model.kind === 'embedding');
  assert.deepEqual(
    embedding.map((model) => `${model.id}@${[...model.offers.keys()].join(',')}`),
    [
      'text-embedding-3-large@developer,cloud_c',
      'text-embedding-3-small@developer,cloud_c',
      'gemini-embedding-001@developer,cloud_b',
      'titan-embed-text-v2@cloud_a',
      'cohere-embed-english-v3@cloud_a',
    ],
  );
  for (const model of embedding) {
    assert.ok(model.embedding, model.id);
    assert.equal(model.maxOutputTokens, 0);
    assert.deepEqual(model.efforts, ['none']);
    for (const offer of model.offers.values()) {
      assert.deepEqual(offer.tiers, ['standard']);
      assert.deepEqual(Object.keys(offer.prices.standard.rates), ['input']);
    }
  }
  const titan = bundledCatalog().lookup('titan-embed-text');
  assert.equal(titan?.offers.get('cloud_a')?.upstreamModel, 'amazon.titan-embed-text-v2:0');
  assert.deepEqual(titan?.embedding?.dimensionValues, [256, 512, 1024]);
});

test('Anthropic models are on developer, cloud_a and cloud_b, web search on cloud_b but not cloud_a', () => {
  for (const model of bundledCatalog().models.filter((m) => m.vendor === 'anthropic')) {
    assert.deepEqual([...model.offers.keys()], ['developer', 'cloud_a', 'cloud_b'], model.id);
    assert.equal(model.offers.get('cloud_a')?.capabilities.webSearch, false, model.id);
    assert.equal(model.offers.get('cloud_b')?.capabilities.webSearch, true, model.id);
    assert.deepEqual(model.tiers, ['standard'], `${model.id}: no flex on any Claude provider`);
  }
  const sonnet = bundledCatalog().lookup('claude-sonnet-4-5-20250929');
  // Bedrock serves current Claude models through (global) inference profiles only.
  assert.equal(
    sonnet?.offers.get('cloud_a')?.upstreamModel,
    'global.anthropic.claude-sonnet-4-5-20250929-v1:0',
  );
  assert.equal(sonnet?.offers.get('cloud_b')?.upstreamModel, 'claude-sonnet-4-5@20250929');
});

test('OpenAI models are on developer and cloud_c; flex costs half of standard where offered', () => {
  for (const model of bundledCatalog().models.filter((m) => m.vendor === 'openai')) {
    assert.deepEqual([...model.offers.keys()], ['developer', 'cloud_c'], model.id);
    for (const offer of model.offers.values()) {
      const flex = offer.prices.flex;
      if (!flex) continue;
      assert.equal(flex.rates.input, (offer.prices.standard.rates.input ?? NaN) / 2);
      assert.equal(flex.rates.output, (offer.prices.standard.rates.output ?? NaN) / 2);
    }
  }
  const sol = bundledCatalog().lookup('gpt-5.6-sol');
  assert.deepEqual(sol?.offers.get('cloud_c')?.tiers, ['standard', 'flex']);
  assert.deepEqual(bundledCatalog().lookup('gpt-5.5')?.offers.get('cloud_c')?.tiers, ['standard']);
});

test('every bundled chat model accepts all three compression levels; embeddings none', () => {
  for (const model of bundledCatalog().models)
    assert.deepEqual(
      model.compressions,
      model.kind === 'chat' ? ['off', 'compact', 'compressed'] : ['off'],
      model.id,
    );
});

test('a family alias resolves to the newest version; a version alias to its own version', () => {
  const catalog = bundledCatalog();
  assert.equal(catalog.lookup('claude-sonnet')?.id, 'claude-sonnet-4-6');
  assert.equal(catalog.lookup('claude-sonnet-4-5')?.id, 'claude-sonnet-4-5-20250929');
  assert.equal(catalog.lookup('gpt')?.id, 'gpt-5.6-sol');
  assert.equal(catalog.lookup('nope'), undefined);
});

test('adding a newer version moves the family alias to it', () => {
  const file = bundledCatalogFile();
  const base = file.models[modelIndex(file, 'claude-sonnet-4-6')] as Json;
  file.models.push({ ...structuredClone(base), id: 'claude-sonnet-4-7', released: '2027-01-01' });
  const catalog = buildCatalog(file);
  assert.equal(catalog.lookup('claude-sonnet')?.id, 'claude-sonnet-4-7');
  const previous = catalog.lookup('claude-sonnet-4-6');
  assert.ok(previous);
  assert.deepEqual(catalog.aliasesOf(previous), []);
});

test('a missing field is reported with its path', () => {
  const file = bundledCatalogFile();
  const index = modelIndex(file, 'claude-sonnet-4-5-20250929');
  const providers = (file.models[index] as Json).providers as Record<string, Json>;
  delete providers.cloud_b?.upstreamModel;
  assert.deepEqual(problemsOf(file), [`models[${index}].providers.cloud_b.upstreamModel: required`]);
});

test('unknown fields and unknown providers are rejected', () => {
  const file = bundledCatalogFile();
  (file.models[0] as Json).colour = 'blue';
  ((file.models[1] as Json).providers as Json).cloud_z = {};
  assert.deepEqual(problemsOf(file), [
    'models[0].colour: unknown field',
    'models[1].providers.cloud_z: unknown field',
  ]);
});

test('a value outside an enumeration lists the accepted values', () => {
  const file = bundledCatalogFile();
  (file.models[0] as Json).defaultEffort = 'ultra';
  assert.deepEqual(problemsOf(file), [
    'models[0].defaultEffort: must be one of none, minimal, low, medium, high, xhigh, max',
  ]);
});

test('cross-checks: default effort, duplicates, alias collisions, families, provider restrictions', () => {
  const file = bundledCatalogFile();
  const first = file.models[0] as Json;
  first.defaultEffort = 'minimal';
  file.models.push(structuredClone(file.models[1] as Json));
  (file.families[0] as Json).aliases = ['gpt', 'claude-haiku-4-5-20251001'];
  (file.models[2] as Json).family = 'gpt-mega';
  const haiku = file.models[modelIndex(file, 'claude-haiku-4-5-20251001')] as Json;
  const haikuProviders = haiku.providers as Record<string, Json>;
  (haikuProviders.cloud_a as Json).capabilities = { webSearch: false, vision: true };
  haiku.capabilities = { tools: true, vision: false, webSearch: true };
  const problems = problemsOf(file).join('\n');
  assert.match(problems, /models\[0\]\.defaultEffort: 'minimal' is not in efforts/);
  assert.match(problems, /models: duplicate id 'gpt-5.5-2026-04-23'/);
  assert.match(problems, /aliases: 'claude-haiku-4-5-20251001' of family 'gpt' is also an exact model id/);
  assert.match(problems, /models\[2\]\.family: unknown family 'gpt-mega'/);
  assert.match(problems, /providers\.cloud_a\.capabilities\.vision: the model itself lacks it/);
});

test('a model may advertise compact and compressed; off is required, duplicates are not', () => {
  const file = bundledCatalogFile();
  (file.models[0] as Json).compression = ['compact', 'compact'];
  (file.models[1] as Json).compression = ['off', 'compact'];
  const problems = problemsOf(file);
  assert.ok(problems.includes("models[0].compression: must include 'off'"));
  assert.ok(problems.includes("models[0].compression: 'compact' listed twice"));
  assert.ok(!problems.some((problem) => problem.startsWith('models[1].compression')));
});

test('a model id with the grammar separators : or @ is rejected', () => {
  const file = bundledCatalogFile();
  (file.models[0] as Json).id = 'gpt:5';
  assert.match(problemsOf(file)[0] ?? '', /^models\[0\]\.id: must match pattern/);
});

test('two newest versions on one release date make the family alias ambiguous', () => {
  const file = bundledCatalogFile();
  const base = file.models[modelIndex(file, 'claude-sonnet-4-6')] as Json;
  file.models.push({ ...structuredClone(base), id: 'claude-sonnet-4-6-bis' });
  assert.match(
    problemsOf(file).join('\n'),
    /families: 'claude-sonnet' has two newest versions released 2026-02-17/,
  );
});

test("an offer's efforts are its effort profile's keys; the profile carries the expressions", () => {
  const pro = bundledCatalog().lookup('gemini-2.5-pro');
  const offer = pro?.offers.get('developer');
  assert.deepEqual(offer?.efforts, ['minimal', 'low', 'medium', 'high', 'xhigh']);
  assert.deepEqual(offer?.profile.efforts.high, { kind: 'gemini-budget', budgetTokens: 24576 });
  assert.equal(offer?.profile.efforts.none, undefined);
  assert.equal(offer?.profile.upstreamModel, 'gemini-2.5-pro');
  assert.equal(offer?.profile.webSearchTool, 'googleSearch');
  assert.equal(offer?.profile.defaultMaxOutputTokens, pro?.maxOutputTokens);
  const opus = bundledCatalog().lookup('claude-opus-4-8');
  assert.deepEqual(opus?.offers.get('cloud_b')?.profile.efforts.none, { kind: 'omit' });
  assert.equal(opus?.offers.get('cloud_b')?.profile.webSearchTool, 'web_search_20250305');
  assert.equal(opus?.offers.get('cloud_a')?.profile.webSearchTool, undefined, 'web search is off on cloud_a');
});

test("an offer's effort profile must exist and accept the model's default effort", () => {
  const file = bundledCatalogFile();
  const index = modelIndex(file, 'claude-opus-4-8');
  const providers = (file.models[index] as Json).providers as Record<string, Json>;
  (providers.cloud_a as Json).effort = 'claude-nope';
  assert.deepEqual(problemsOf(file), [
    `models[${index}].providers.cloud_a.effort: unknown effort profile 'claude-nope'`,
  ]);
  file.effortProfiles['claude-high-only'] = { high: { kind: 'anthropic-adaptive', effort: 'high' } };
  (providers.cloud_a as Json).effort = 'claude-high-only';
  assert.deepEqual(problemsOf(file), [
    `models[${index}].providers.cloud_a.effort: profile 'claude-high-only' must accept the model's defaultEffort 'none'`,
  ]);
});

test('a profile accepting an effort the model lacks, or an unknown effort, is refused', () => {
  const file = bundledCatalogFile();
  const index = modelIndex(file, 'claude-sonnet-4-6');
  const providers = (file.models[index] as Json).providers as Record<string, Json>;
  (providers.cloud_a as Json).effort = 'claude-adaptive-with-xhigh';
  assert.deepEqual(problemsOf(file), [
    `models[${index}].providers.cloud_a.effort: profile 'claude-adaptive-with-xhigh' accepts 'xhigh', which is not in the model's efforts (none, minimal, low, medium, high, max)`,
  ]);
  (providers.cloud_a as Json).effort = 'claude-adaptive-to-max';
  file.effortProfiles['claude-ultra'] = { ultra: { kind: 'omit' } };
  assert.deepEqual(problemsOf(file), ['effortProfiles.claude-ultra.ultra: unknown field']);
});

test('an offer with web search must name its web search tool', () => {
  const file = bundledCatalogFile();
  const index = modelIndex(file, 'gemini-2.5-pro');
  const providers = (file.models[index] as Json).providers as Record<string, Json>;
  delete (providers.developer as Json).webSearchTool;
  assert.deepEqual(problemsOf(file), [
    `models[${index}].providers.developer.webSearchTool: required where the offer has web search`,
  ]);
});

test('an impossible release date is rejected rather than rolled over', () => {
  const file = bundledCatalogFile();
  (file.models[0] as Json).released = '2026-02-30';
  assert.deepEqual(problemsOf(file), ['models[0].released: not a valid date']);
});

test("an embedding model has its embedding settings and none of a chat model's fields", () => {
  const file = bundledCatalogFile();
  const titan = file.models[modelIndex(file, 'titan-embed-text-v2')] as Json;
  const cohere = file.models[modelIndex(file, 'cohere-embed-english-v3')] as Json;
  const small = file.models[modelIndex(file, 'text-embedding-3-small')] as Json;
  const gpt = file.models[modelIndex(file, 'gpt-5.5-2026-04-23')] as Json;
  const t = modelIndex(file, 'titan-embed-text-v2');
  const c = modelIndex(file, 'cohere-embed-english-v3');
  const s = modelIndex(file, 'text-embedding-3-small');
  const g = modelIndex(file, 'gpt-5.5-2026-04-23');
  delete titan.embedding;
  cohere.contextWindow = 512;
  const offer = (small.providers as Record<string, Json>).developer as Json;
  offer.effort = 'openai-none-to-xhigh';
  offer.prices = {
    standard: { input: 0.02, output: 1 },
    flex: { input: 0.01 },
  };
  small.embedding = {
    dimensions: 1536,
    minDimensions: 2000,
    dimensionValues: [512],
    maxInputs: 1,
    maxInputTokens: 1,
  };
  delete gpt.efforts;
  gpt.embedding = { dimensions: 1, maxInputs: 1, maxInputTokens: 1 };
  assert.deepEqual(
    [...problemsOf(file)].sort(),
    [
      `models[${c}].contextWindow: a chat model's field, not an embedding model's`,
      `models[${g}].efforts: required`,
      `models[${g}].embedding: only for a model of kind 'embedding'`,
      `models[${s}].embedding.dimensionValues: must include dimensions (1536), the default`,
      `models[${s}].embedding.minDimensions: larger than dimensions`,
      `models[${s}].embedding: minDimensions or dimensionValues, not both`,
      `models[${s}].providers.developer.effort: a chat offer's field, not an embedding offer's`,
      `models[${s}].providers.developer.prices.flex: embeddings have no flex tier`,
      `models[${s}].providers.developer.prices.standard.output: embeddings are priced on \`input\` only (they report no other meter)`,
      `models[${t}].embedding: required for an embedding model`,
    ].sort(),
  );
});
