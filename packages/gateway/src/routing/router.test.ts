import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isAppError } from '@app/http-kit';
import type { ProviderId } from '../contracts.ts';
import { CircuitBreakers } from './breaker.ts';
import { buildCatalog } from './catalog.ts';
import { createRouter } from './router.ts';
import { memoryStickyStore } from './sticky-store.ts';
import {
  bundledCatalog,
  bundledCatalogFile,
  bundledUpstreams,
  fakeLedger,
  manualClock,
  principal,
  SIMULATED_ENV,
  SIMULATOR_URL,
} from './testing.ts';

const catalog = bundledCatalog();
const upstreams = bundledUpstreams(catalog);
const noNeeds = { tools: false, webSearch: false };
const HOUR = 3_600_000;

function setup(budgets: Partial<Record<ProviderId, number>>) {
  const clock = manualClock();
  const funds = fakeLedger(budgets);
  const breakers = new CircuitBreakers({ failures: 3, cooldownMs: 30_000, now: clock.now });
  const sticky = memoryStickyStore({ idleMs: HOUR, now: clock.now });
  const router = createRouter({ catalog, upstreams, breakers, sticky, ledger: funds.ledger });
  return { router, clock, funds, breakers };
}

async function rejection(promise: Promise<unknown>) {
  try {
    await promise;
  } catch (error) {
    assert.ok(isAppError(error));
    return error;
  }
  assert.fail('the selection succeeded');
}

test('a selection carries the upstream target, the price of the tier and the applied options', async () => {
  const { router } = setup({ developer: 1_000_000 });
  const plan = router.resolve('gpt-5.6-sol:high:flex', {});
  const selection = await router.select(plan, principal(), noNeeds);
  assert.equal(selection.provider, 'developer');
  const { signer, ...target } = selection.target;
  assert.deepEqual(target, {
    adapter: 'openai',
    endpoint: { baseUrl: `${SIMULATOR_URL}/openai/v1` },
    offer: catalog.lookup('gpt-5.6-sol')?.offers.get('developer')?.profile,
    timeoutMs: 900_000,
  });
  assert.equal(target.offer.upstreamModel, 'gpt-5.6-sol');
  assert.deepEqual(target.offer.efforts.high, { kind: 'openai', value: 'high' });
  // The endpoint's signer, holding the credential the upstreams file names (env:SIM_OPENAI_API_KEY).
  const url = `${SIMULATOR_URL}/openai/v1/chat/completions`;
  const headers = await signer.sign({
    method: 'POST',
    url,
    headers: { 'content-type': 'application/json' },
    body: '{}',
  });
  assert.deepEqual(headers, {
    'content-type': 'application/json',
    authorization: `Bearer ${SIMULATED_ENV.SIM_OPENAI_API_KEY}`,
  });
  assert.deepEqual(selection.price, {
    rates: { input: 2.5, cached_input: 0.25, output: 15 },
    byPromptSize: [],
  });
  assert.deepEqual(selection.options, { effort: 'high', tier: 'flex', compression: 'off' });
});

test('automatic selection picks the provider with most budget left and keeps it while usable', async () => {
  const { router, funds } = setup({ developer: 100, cloud_a: 500, cloud_b: 300 });
  const plan = router.resolve('claude-sonnet', {});
  assert.equal((await router.select(plan, principal(), noNeeds)).provider, 'cloud_a');
  funds.set({ developer: 100, cloud_a: 50, cloud_b: 300 });
  assert.equal((await router.select(plan, principal(), noNeeds)).provider, 'cloud_a', 'sticky');
  const otherUser = principal({ userId: 2 });
  assert.equal((await router.select(plan, otherUser, noNeeds)).provider, 'cloud_b', 'per user');
});

test('stickiness is per family: another model of the family reuses the choice', async () => {
  const { router, funds } = setup({ developer: 100, cloud_a: 500, cloud_b: 300 });
  await router.select(router.resolve('claude-opus-4-8', {}), principal(), noNeeds);
  funds.set({ developer: 100, cloud_a: 200, cloud_b: 300 });
  const older = await router.select(router.resolve('claude-opus-4-7', {}), principal(), noNeeds);
  assert.equal(older.provider, 'cloud_a');
});

test('a sticky choice expires after the idle time, and each use renews it', async () => {
  const { router, funds, clock } = setup({ developer: 100, cloud_a: 500 });
  const plan = router.resolve('claude-haiku', {});
  await router.select(plan, principal(), noNeeds);
  funds.set({ developer: 900, cloud_a: 500 });
  clock.advance(HOUR - 1000);
  assert.equal((await router.select(plan, principal(), noNeeds)).provider, 'cloud_a', 'used: renewed');
  clock.advance(HOUR - 1000);
  assert.equal(
    (await router.select(plan, principal(), noNeeds)).provider,
    'cloud_a',
    'still within idle time',
  );
  clock.advance(HOUR);
  assert.equal((await router.select(plan, principal(), noNeeds)).provider, 'developer', 'expired');
});

test('a kept sticky choice costs no balance read; a failed reservation moves it for good', async () => {
  const { router, funds } = setup({ cloud_a: 500, cloud_b: 100 });
  const plan = router.resolve('claude-opus', {});
  assert.equal((await router.select(plan, principal(), noNeeds)).provider, 'cloud_a');
  const reads = funds.calls();
  funds.set({ cloud_a: 0, cloud_b: 100 });
  // The bucket is empty, but the reservation is what finds out (atomically, in the ledger).
  assert.equal((await router.select(plan, principal(), noNeeds)).provider, 'cloud_a');
  assert.equal(funds.calls(), reads, 'sticky path: no balances() call');
  // The chat path's reservation failed: it asks again excluding cloud_a.
  assert.equal((await router.select(plan, principal(), noNeeds, ['cloud_a'])).provider, 'cloud_b');
  assert.equal((await router.select(plan, principal(), noNeeds)).provider, 'cloud_b', 'the choice moved');
});

test('a new choice skips providers whose bucket is empty', async () => {
  const { router } = setup({ cloud_a: 0, cloud_b: 100, developer: 50 });
  const selection = await router.select(router.resolve('claude-opus', {}), principal(), noNeeds);
  assert.equal(selection.provider, 'cloud_b');
});

test('needs filter candidates: web search never goes to cloud_a', async () => {
  const { router } = setup({ cloud_a: 900, cloud_b: 100 });
  const plan = router.resolve('claude-opus', {});
  const selection = await router.select(plan, principal(), { tools: true, webSearch: true });
  assert.equal(selection.provider, 'cloud_b');
});

test('a need no provider of the model can meet is 400; OpenAI models have no web search', async () => {
  const { router } = setup({ developer: 900, cloud_c: 900 });
  const error = await rejection(
    router.select(router.resolve('gpt-5.5', {}), principal(), { tools: false, webSearch: true }),
  );
  assert.equal(error.status, 400);
  assert.match(error.message, /web search/);
});

test('requested options filter candidates: flex goes where flex is offered', async () => {
  const { router } = setup({ developer: 100, cloud_c: 900 });
  const selection = await router.select(router.resolve('gpt-5.5:flex', {}), principal(), noNeeds);
  assert.equal(selection.provider, 'developer');
});

test('no budget anywhere is 402 gateway_allocation_exhausted', async () => {
  const { router } = setup({ developer: 0 });
  const error = await rejection(router.select(router.resolve('claude-haiku', {}), principal(), noNeeds));
  assert.equal(error.status, 402);
  assert.equal(error.code, 'gateway_allocation_exhausted');
  assert.match(error.message, /'apollo'/);
});

test('exclude (a failed reservation) moves to the next provider, then 402', async () => {
  const { router } = setup({ cloud_a: 500, cloud_b: 100 });
  const plan = router.resolve('claude-opus', {});
  assert.equal((await router.select(plan, principal(), noNeeds, ['cloud_a'])).provider, 'cloud_b');
  const error = await rejection(router.select(plan, principal(), noNeeds, ['cloud_a', 'cloud_b']));
  assert.equal(error.code, 'gateway_allocation_exhausted');
});

test('an explicit provider is never replaced: exhausted reservation is 402, open circuit is 503', async () => {
  const { router } = setup({ developer: 900, cloud_a: 900, cloud_b: 900 });
  const plan = router.resolve('claude-opus@cloud_a', {});
  assert.equal((await router.select(plan, principal(), noNeeds)).provider, 'cloud_a');
  assert.equal(
    (await rejection(router.select(plan, principal(), noNeeds, ['cloud_a']))).code,
    'gateway_allocation_exhausted',
  );
  for (let i = 0; i < 3; i++) {
    const selection = await router.select(plan, principal(), noNeeds);
    await router.report(selection, principal(), plan, 'server');
  }
  const error = await rejection(router.select(plan, principal(), noNeeds));
  assert.equal(error.status, 503);
  assert.equal(error.code, 'provider_unavailable');
  assert.equal(error.headers['retry-after'], '30');
  const webSearch = await rejection(
    router.select(router.resolve('claude-opus@cloud_a', {}), principal(), { tools: false, webSearch: true }),
  );
  assert.equal(webSearch.status, 400, 'web search on cloud_a is refused, not rerouted');
});

test('a failing automatic provider is dropped from stickiness and skipped while its circuit is open', async () => {
  const { router, clock, funds } = setup({ cloud_a: 500, cloud_b: 100 });
  const plan = router.resolve('claude-opus', {});
  let selection = await router.select(plan, principal(), noNeeds);
  assert.equal(selection.provider, 'cloud_a');
  await router.report(selection, principal(), plan, 'timeout');
  funds.set({ cloud_a: 500, cloud_b: 600 });
  assert.equal((await router.select(plan, principal(), noNeeds)).provider, 'cloud_b', 'stickiness dropped');
  funds.set({ cloud_a: 500, cloud_b: 100 });
  for (let i = 0; i < 3; i++)
    await router.report({ ...selection, provider: 'cloud_a' }, principal(), plan, 'connection');
  selection = await router.select(plan, principal(), noNeeds);
  assert.equal(selection.provider, 'cloud_b', 'cloud_a circuit open although it has more budget');
  clock.advance(30_000);
  const trial = await router.select(plan, principal({ userId: 7 }), noNeeds);
  assert.equal(trial.provider, 'cloud_a', 'half-open: one trial request');
  assert.equal(
    (await router.select(plan, principal({ userId: 8 }), noNeeds)).provider,
    'cloud_b',
    'trial in flight',
  );
  await router.report(trial, principal({ userId: 7 }), plan, 'ok');
  assert.equal(
    (await router.select(plan, principal({ userId: 9 }), noNeeds)).provider,
    'cloud_a',
    'closed again',
  );
});

test('every provider failing is 503 provider_unavailable, not 402', async () => {
  const { router } = setup({ developer: 500, cloud_c: 500 });
  const plan = router.resolve('gpt-5.4-mini', {});
  for (const provider of ['developer', 'cloud_c'] as const) {
    const selection = {
      ...(await router.select(router.resolve(`gpt-5.4-mini@${provider}`, {}), principal(), noNeeds)),
    };
    for (let i = 0; i < 3; i++) await router.report(selection, principal(), plan, 'server');
  }
  const error = await rejection(router.select(plan, principal(), noNeeds));
  assert.equal(error.code, 'provider_unavailable');
});

test("a failing vendor endpoint opens its own circuit only, not the provider's other vendors", async () => {
  const { router } = setup({ developer: 500 });
  const gpt = router.resolve('gpt-5.4-mini@developer', {});
  const selection = await router.select(gpt, principal(), noNeeds);
  for (let i = 0; i < 3; i++) await router.report(selection, principal(), gpt, 'server');
  assert.equal((await rejection(router.select(gpt, principal(), noNeeds))).code, 'provider_unavailable');
  const claude = await router.select(router.resolve('claude-haiku@developer', {}), principal(), noNeeds);
  assert.equal(claude.provider, 'developer');
  assert.equal(claude.target.adapter, 'anthropic');
});

test('client errors and rate limits do not open the circuit', async () => {
  const { router } = setup({ developer: 500 });
  const plan = router.resolve('gpt-5.4-mini@developer', {});
  const selection = await router.select(plan, principal(), noNeeds);
  for (let i = 0; i < 10; i++)
    await router.report(selection, principal(), plan, i % 2 ? 'client' : 'rate_limited');
  assert.equal((await router.select(plan, principal(), noNeeds)).provider, 'developer');
});

test('without a simulator in process, simulator-backed providers are unavailable (503)', async () => {
  const clock = manualClock();
  const router = createRouter({
    catalog,
    upstreams: bundledUpstreams(catalog, null),
    breakers: new CircuitBreakers({ failures: 3, cooldownMs: 1000, now: clock.now }),
    sticky: memoryStickyStore({ idleMs: HOUR, now: clock.now }),
    ledger: fakeLedger({ developer: 100 }).ledger,
  });
  const error = await rejection(router.select(router.resolve('gpt-5.5', {}), principal(), noNeeds));
  assert.equal(error.code, 'provider_unavailable');
});

test('options each accepted somewhere but not together on one provider are a 400 naming both', async () => {
  const file = bundledCatalogFile();
  const sol = file.models.find((model) => model.id === 'gpt-5.6-sol') as Record<string, unknown>;
  const providers = sol.providers as Record<string, Record<string, unknown>>;
  // developer: flex but efforts narrowed; cloud_c: all efforts but no flex.
  file.effortProfiles['openai-none-low'] = {
    none: { kind: 'openai', value: 'none' },
    low: { kind: 'openai', value: 'low' },
  };
  (providers.developer as Record<string, unknown>).effort = 'openai-none-low';
  delete ((providers.cloud_c as Record<string, unknown>).prices as Record<string, unknown>).flex;
  const narrowed = buildCatalog(file);
  const clock = manualClock();
  const router = createRouter({
    catalog: narrowed,
    upstreams: bundledUpstreams(narrowed),
    breakers: new CircuitBreakers({ failures: 3, cooldownMs: 1000, now: clock.now }),
    sticky: memoryStickyStore({ idleMs: HOUR, now: clock.now }),
    ledger: fakeLedger({ developer: 100, cloud_c: 100 }).ledger,
  });
  const error = await rejection(
    router.select(router.resolve('gpt-5.6-sol:high:flex', {}), principal(), noNeeds),
  );
  assert.equal(error.code, 'gateway_invalid_model_modifier');
  assert.match(error.message, /effort=high together with tier=flex/);
  const low = await router.select(router.resolve('gpt-5.6-sol:low:flex', {}), principal(), noNeeds);
  assert.equal(low.provider, 'developer');
});
