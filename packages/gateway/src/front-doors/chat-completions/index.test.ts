/** The chat plugin on a bare Fastify app with fake access, routing and ledger: what only fakes can show. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { type Simulator, startSimulator } from '@app/upstream-simulator';
import Fastify from 'fastify';
import { pino } from 'pino';
import { Value } from 'typebox/value';
import type { EffortExpression } from '@app/provider-adapters';
import type { Ledger, Principal, RoutePlan, Router, Selection, UsageRecord } from '../../contracts.ts';
import { type UpstreamConfig, UpstreamConfigSchema } from '../../upstream/config.ts';
import { createNoneSigner } from '../../upstream/credentials/index.ts';
import { createUpstream, SecretRedactor } from '../../upstream/index.ts';
import { memoryLimiter } from '../../limits/index.ts';
import { chatRoutes } from './index.ts';

const principal: Principal = {
  userId: 1,
  email: 'ada@example.com',
  projectId: 1,
  projectSlug: 'apollo',
  tokenId: 'jti',
  tokenExpiresAt: new Date('2099-01-01T00:00:00Z'),
  limits: { project: {}, token: {} },
};
const plan: RoutePlan = {
  requested: 'm',
  model: 'model-2026-01-01',
  family: 'model',
  explicitProvider: 'developer',
  options: { effort: 'none', tier: 'standard', compression: 'off' },
  ignored: [],
  contextWindow: 100_000,
  maxOutputTokens: 1_000,
};

/** `none` as OpenAI's `reasoning_effort: "none"`, or (no reasoning control) as nothing at all. */
function effortOf(reasoningControl: boolean): EffortExpression {
  return reasoningControl ? { kind: 'openai', value: 'none' } : { kind: 'omit' };
}

function fakes(sim: Simulator, settleDelayMs: number, reasoningControl = true) {
  const settled: UsageRecord[] = [];
  const selection: Selection = {
    provider: 'developer',
    target: {
      adapter: 'openai-compatible',
      endpoint: { baseUrl: sim.baseUrl },
      signer: createNoneSigner({ type: 'none' }, { env: {} }),
      offer: {
        upstreamModel: 'up-model',
        efforts: { none: effortOf(reasoningControl) },
        tiers: ['standard'],
        defaultMaxOutputTokens: 1_000,
        maxOutputTokens: 1_000,
      },
      timeoutMs: 5_000,
    },
    price: { rates: { input: 1, cached_input: 0.1, output: 2 }, byPromptSize: [] },
    prices: { standard: { rates: { input: 1, cached_input: 0.1, output: 2 }, byPromptSize: [] } },
    options: plan.options,
  };
  const router: Router = {
    resolve: () => plan,
    select: async () => selection,
    release: () => {},
    report: async () => {},
  };
  const reserve: Ledger['reserve'] = async (input) => ({
    id: '1',
    principal,
    provider: input.provider,
    amountMicros: input.estimateMicros,
  });
  const ledger: Ledger = {
    reserve,
    tryReserve: reserve,
    settle: async (_reservation, usage) => {
      await sleep(settleDelayMs);
      settled.push(usage);
    },
    release: async () => {},
    balances: async () => ({}),
  };
  return { router, ledger, settled, access: { authenticate: async () => principal } };
}

async function app(sim: Simulator, settleDelayMs: number, reasoningControl = true) {
  const config = Value.Default(UpstreamConfigSchema, {}) as UpstreamConfig;
  const upstream = await createUpstream({
    config,
    log: pino({ level: 'silent' }),
    secrets: new SecretRedactor(),
  });
  const deps = fakes(sim, settleDelayMs, reasoningControl);
  const server = Fastify();
  await server.register(chatRoutes({ ...deps, upstream, limiter: memoryLimiter({ leaseMs: 60_000 }) }));
  server.addHook('onClose', () => upstream.close());
  return { server, settled: deps.settled };
}

const body = { model: 'm', messages: [{ role: 'user', content: 'hi' }] };

test('closing the app waits for ledger writes still running after their response', async (t) => {
  const sim = await startSimulator();
  t.after(() => sim.close());
  const { server, settled } = await app(sim, 150);
  t.after(() => server.close());
  const response = await server.inject({ method: 'POST', url: '/v1/chat/completions', payload: body });
  assert.equal(response.statusCode, 200);
  assert.equal(settled.length, 0, 'the answer did not wait for the ledger');
  await server.close();
  assert.equal(settled.length, 1);
  assert.equal(settled[0]?.status, 'ok');
});

test('an offer whose effort profile omits the effort sends no reasoning_effort upstream', async (t) => {
  const sim = await startSimulator();
  t.after(() => sim.close());
  const { server } = await app(sim, 0, false);
  t.after(() => server.close());
  await server.inject({
    method: 'POST',
    url: '/v1/chat/completions',
    payload: { ...body, reasoning_effort: 'high' },
  });
  const sent = (sim.received.at(-1)?.body ?? {}) as Record<string, unknown>;
  assert.equal('reasoning_effort' in sent, false, 'the client value is an input, not forwarded');
  assert.equal(sent.model, 'up-model');
  const { server: controlled } = await app(sim, 0, true);
  t.after(() => controlled.close());
  await controlled.inject({
    method: 'POST',
    url: '/v1/chat/completions',
    payload: { ...body, reasoning_effort: 'high' },
  });
  assert.equal((sim.received.at(-1)?.body as Record<string, unknown>).reasoning_effort, 'none');
});
