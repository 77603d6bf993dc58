/**
 * The gateway's own series through HTTP: requests answered by a local OpenAI-compatible
 * upstream (scripted usage and failures) or the simulator, then /metrics parsed as Prometheus
 * parses it. docs/gateway/metrics.md.
 */
import assert from 'node:assert/strict';
import type { ServerResponse } from 'node:http';
import { describe, test, type TestContext } from 'node:test';
import { seedAccount } from '../access/testing.ts';
import {
  type ChatTestApp,
  type ChatTestOptions,
  localUpstream,
  startChatApp,
} from '../front-doors/chat-completions/testing.ts';
import { labelSets, observations, sample, scrape } from './testing.ts';

/** An answer with every kind of token the metrics count. */
const USAGE = {
  prompt_tokens: 1_200,
  completion_tokens: 300,
  total_tokens: 1_500,
  prompt_tokens_details: { cached_tokens: 1_000 },
  completion_tokens_details: { reasoning_tokens: 120 },
};

function answer(response: ServerResponse): void {
  response.writeHead(200, { 'content-type': 'application/json' }).end(
    JSON.stringify({
      id: 'chatcmpl-metrics',
      object: 'chat.completion',
      created: 1,
      model: 'm',
      choices: [{ index: 0, message: { role: 'assistant', content: 'ok' }, finish_reason: 'stop' }],
      usage: USAGE,
    }),
  );
}

const failWith = (status: number) => (response: ServerResponse) =>
  response
    .writeHead(status, { 'content-type': 'application/json' })
    .end(JSON.stringify({ error: { message: `failed with ${status}`, type: 'server_error' } }));

/** `developer`'s OpenAI-family models answered by `script`; other providers simulated. */
async function gateway(
  t: TestContext,
  script: (response: ServerResponse) => void,
  options: ChatTestOptions = {},
): Promise<ChatTestApp> {
  const url = await localUpstream(t, (request, response) => {
    request.resume();
    request.on('end', () => script(response));
  });
  const app = await startChatApp({
    behaviour: { firstTokenDelayMs: 0, tokenDelayMs: 0 },
    allocations: { developer: 10, cloud_c: 5 },
    ...options,
    editUpstreams: (file) => {
      const developer = file.providers.developer;
      if (developer) developer.vendors.openai = { adapter: 'openai-compatible', baseUrl: url };
    },
  });
  t.after(() => app.close());
  return app;
}

function chat(app: ChatTestApp, model: string, extra: Record<string, unknown> = {}, token = app.token) {
  return app.app.inject({
    method: 'POST',
    url: '/v1/chat/completions',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    payload: JSON.stringify({ model, messages: [{ role: 'user', content: 'Hello' }], ...extra }),
  });
}

const OF_CALL = { provider: 'developer', model: 'gpt-5.4', project: 'apollo' };

describe('token and cost counters', () => {
  test('move by exactly the usage and the cost the ledger charged', async (t) => {
    const app = await gateway(t, answer);
    const before = await scrape(app.app);
    for (let i = 0; i < 2; i++) {
      const response = await chat(app, 'gpt-5.4@developer');
      assert.equal(response.statusCode, 200, response.body);
    }
    const rows = await app.settledUsage(2);
    const after = await scrape(app.app);
    const moved = (type: string) =>
      sample(after, 'gateway_tokens_total', { ...OF_CALL, type }) -
      sample(before, 'gateway_tokens_total', { ...OF_CALL, type });
    assert.equal(moved('input'), 2 * 1_200);
    assert.equal(moved('cached'), 2 * 1_000);
    assert.equal(moved('cache_write'), 0);
    assert.equal(moved('output'), 2 * 300);
    assert.equal(moved('reasoning'), 2 * 120);
    const charged = rows.reduce((sum, row) => sum + Number(row.cost_micros), 0);
    assert.ok(charged > 0);
    const cost = sample(after, 'gateway_cost_usd_total', OF_CALL);
    assert.ok(Math.abs(cost - charged / 1_000_000) < 1e-9, `${cost} USD counted, ${charged} micros charged`);
    assert.equal(observations(after, 'gateway_upstream_latency_seconds', { provider: 'developer' }), 2);
  });

  test('the model label is the canonical name, also when the client names the dated version', async (t) => {
    const app = await gateway(t, answer);
    const response = await chat(app, 'gpt-5.4-2026-03-05@developer');
    assert.equal(response.statusCode, 200, response.body);
    const metrics = await scrape(app.app);
    assert.equal(sample(metrics, 'gateway_tokens_total', { ...OF_CALL, type: 'input' }), 1_200);
    const models = new Set(labelSets(metrics, 'gateway_tokens_total').map((labels) => labels.model));
    assert.deepEqual([...models], ['gpt-5.4']);
  });

  test('past GATEWAY_METRICS_MAX_PROJECTS, a new project is counted as other', async (t) => {
    const app = await gateway(t, answer, { metrics: { maxProjects: 1 } });
    const { token } = await seedAccount(app.database, {
      email: 'bob@example.com',
      projectSlug: 'borealis',
      allocations: { developer: 10 },
      config: app.config,
    });
    assert.equal((await chat(app, 'gpt-5.4@developer')).statusCode, 200);
    assert.equal((await chat(app, 'gpt-5.4@developer', {}, token)).statusCode, 200);
    const metrics = await scrape(app.app);
    const input = { provider: 'developer', model: 'gpt-5.4', type: 'input' };
    assert.equal(sample(metrics, 'gateway_tokens_total', { ...input, project: 'apollo' }), 1_200);
    assert.equal(sample(metrics, 'gateway_tokens_total', { ...input, project: 'other' }), 1_200);
    const projects = new Set(labelSets(metrics, 'gateway_tokens_total').map((labels) => labels.project));
    assert.deepEqual([...projects].sort(), ['apollo', 'other']);
    // The bucket gauge is bounded by the same cap.
    assert.deepEqual(
      labelSets(metrics, 'gateway_bucket_remaining_usd')
        .map((labels) => labels.project)
        .sort(),
      ['apollo', 'apollo', 'other'],
    );
  });
});

describe('upstream latency, failures and circuits', () => {
  test('each failed attempt is counted by provider and kind', async (t) => {
    const app = await gateway(t, failWith(429));
    const response = await chat(app, 'gpt-5.4');
    assert.equal(response.statusCode, 200, 'failed over to cloud_c');
    const metrics = await scrape(app.app);
    assert.equal(
      sample(metrics, 'gateway_upstream_errors_total', { provider: 'developer', kind: 'rate_limited' }),
      1,
    );
    assert.equal(sample(metrics, 'gateway_upstream_errors_total', { provider: 'cloud_c' }), 0);
    assert.equal(sample(metrics, 'gateway_tokens_total', { provider: 'developer' }), 0, 'nothing charged');
    assert.ok(sample(metrics, 'gateway_tokens_total', { provider: 'cloud_c', type: 'input' }) > 0);
  });

  test('a stream observes its time to first token; a JSON answer does not', async (t) => {
    const app = await gateway(t, answer);
    assert.equal((await chat(app, 'gpt-5.4@cloud_c')).statusCode, 200);
    const json = await scrape(app.app);
    assert.equal(observations(json, 'gateway_time_to_first_token_seconds', { provider: 'cloud_c' }), 0);
    const streamed = await chat(app, 'gpt-5.4@cloud_c', { stream: true });
    assert.ok(streamed.body.endsWith('data: [DONE]\n\n'), streamed.body);
    const metrics = await scrape(app.app);
    assert.equal(observations(metrics, 'gateway_time_to_first_token_seconds', { provider: 'cloud_c' }), 1);
    assert.equal(observations(metrics, 'gateway_upstream_latency_seconds', { provider: 'cloud_c' }), 2);
  });

  test('the circuit gauge shows an endpoint open once its breaker opened, then half-open', async (t) => {
    let clock = Date.now();
    const app = await gateway(t, failWith(503), { routing: { breakerFailures: 1 }, now: () => clock });
    const closed = await scrape(app.app);
    const developer = labelSets(closed, 'gateway_circuit_state').find((labels) =>
      labels.endpoint?.startsWith('developer'),
    );
    assert.ok(developer, 'every configured endpoint has a series');
    assert.equal(sample(closed, 'gateway_circuit_state', developer), 0);
    assert.equal((await chat(app, 'gpt-5.4')).statusCode, 200, 'failed over');
    const open = await scrape(app.app);
    const states = labelSets(open, 'gateway_circuit_state').map(
      (labels) => [labels.endpoint, sample(open, 'gateway_circuit_state', labels)] as const,
    );
    assert.deepEqual(
      states.filter(([, state]) => state !== 0),
      states.filter(([endpoint]) => endpoint === developer.endpoint).map(([endpoint]) => [endpoint, 2]),
    );
    clock += app.config.routing.breakerCooldownMs;
    assert.equal(sample(await scrape(app.app), 'gateway_circuit_state', developer), 1, 'read at scrape time');
  });
});

describe('bucket gauge', () => {
  test('what is left of each bucket is its allocation minus what was charged', async (t) => {
    const app = await gateway(t, answer);
    assert.equal((await chat(app, 'gpt-5.4@developer')).statusCode, 200);
    const rows = await app.settledUsage(1);
    const charged = rows.reduce((sum, row) => sum + Number(row.cost_micros), 0);
    const metrics = await scrape(app.app);
    const left = (provider: string) =>
      sample(metrics, 'gateway_bucket_remaining_usd', { project: 'apollo', provider });
    assert.ok(Math.abs(left('developer') - (10 - charged / 1_000_000)) < 1e-9, `${left('developer')} left`);
    assert.equal(left('cloud_c'), 5);
  });

  test('scrapes within GATEWAY_METRICS_BALANCE_TTL_MS reuse one read of the balances', async (t) => {
    const app = await gateway(t, answer, { metrics: { balanceTtlMs: 60_000 } });
    const left = async () =>
      sample(await scrape(app.app), 'gateway_bucket_remaining_usd', {
        project: 'apollo',
        provider: 'developer',
      });
    assert.equal(await left(), 10);
    assert.equal((await chat(app, 'gpt-5.4@developer')).statusCode, 200);
    await app.settledUsage(1);
    assert.equal(await left(), 10, 'the read of the first scrape, not a new one');
  });
});
