import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setAllocation } from '../../access/admin.ts';
import { type ChatTestApp, startChatApp } from './testing.ts';

const messages = [{ role: 'user', content: 'What is the capital of France?' }];

describe('POST /v1/chat/completions (JSON)', () => {
  let t: ChatTestApp;
  before(async () => {
    t = await startChatApp();
  });
  after(() => t.close());

  const post = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
    t.app.inject({ method: 'POST', url: '/v1/chat/completions', headers: t.headers(headers), payload: body });

  test('answers with the upstream completion under the exact model version, and settles its usage', async () => {
    const response = await post({ model: 'gpt-5.4@developer', messages });
    assert.equal(response.statusCode, 200);
    const body = response.json();
    assert.equal(body.object, 'chat.completion');
    assert.equal(body.model, 'gpt-5.4-2026-03-05');
    assert.match(body.choices[0].message.content, /^Simulated reply to "What is the":/);
    assert.equal(body.system_fingerprint, 'fp_simulator', 'upstream fields are kept');
    assert.equal(
      response.headers['x-gateway-applied'],
      'model="gpt-5.4-2026-03-05", provider=developer, effort=none, tier=standard, compression=off',
    );
    assert.equal(response.headers['x-gateway-ignored'], undefined);
    const sent = t.lastUpstreamBody();
    assert.equal(sent.model, 'gpt-5.4-2026-03-05');
    assert.equal(sent.reasoning_effort, 'none');
    assert.equal('service_tier' in sent, false);
    const [row] = await t.settledUsage(1);
    assert.equal(row?.status, 'ok');
    assert.equal(row?.model, 'gpt-5.4-2026-03-05');
    assert.equal(row?.prompt_tokens, body.usage.prompt_tokens);
    assert.equal(row?.completion_tokens, body.usage.completion_tokens);
    // $2.50 in / $15 out per million tokens = 2.5 / 15 micros per token, rounded up once.
    const cost = Math.ceil(body.usage.prompt_tokens * 2.5 + body.usage.completion_tokens * 15);
    assert.equal(row?.cost_micros, cost);
  });

  test('applies effort and flex upstream and charges the flex price', async () => {
    const response = await post({ model: 'gpt-5.4:high:flex@developer', messages });
    assert.equal(response.statusCode, 200);
    const sent = t.lastUpstreamBody();
    assert.equal(sent.reasoning_effort, 'high');
    assert.equal(sent.service_tier, 'flex');
    assert.match(String(response.headers['x-gateway-applied']), /effort=high, tier=flex/);
    const usage = response.json().usage;
    assert.equal(
      usage.completion_tokens_details.reasoning_tokens,
      32,
      'the simulator reasoned at high effort',
    );
    const rows = await t.settledUsage(2);
    assert.equal(
      rows.at(-1)?.cost_micros,
      Math.ceil(usage.prompt_tokens * 1.25 + usage.completion_tokens * 7.5),
    );
  });

  test('body reasoning_effort and service_tier count as header inputs; unusable ones are ignored and reported', async () => {
    const low = await post({
      model: 'gpt-5.4@developer',
      messages,
      reasoning_effort: 'low',
      service_tier: 'flex',
    });
    assert.match(String(low.headers['x-gateway-applied']), /effort=low, tier=flex/);
    assert.equal(t.lastUpstreamBody().reasoning_effort, 'low');
    const bad = await post({
      model: 'gpt-5.4@developer',
      messages,
      reasoning_effort: 'minimal',
      service_tier: 'priority',
    });
    assert.equal(bad.statusCode, 200);
    assert.equal(bad.headers['x-gateway-ignored'], 'effort=minimal, tier=priority');
    assert.match(String(bad.headers['x-gateway-applied']), /effort=none, tier=standard/);
    const sent = t.lastUpstreamBody();
    assert.equal(sent.reasoning_effort, 'none');
    assert.equal('service_tier' in sent, false);
    const header = await post(
      { model: 'gpt-5.4@developer', messages, reasoning_effort: 'low' },
      { 'x-gateway-effort': 'medium' },
    );
    assert.match(
      String(header.headers['x-gateway-applied']),
      /effort=medium/,
      'the header wins over the body',
    );
  });

  test('passes unknown fields to the upstream untouched', async () => {
    const extra = {
      temperature: 0.2,
      logit_bias: { '1234': -100 },
      metadata: { trace: 'abc' },
      future_field: { nested: [1, { deep: null }], flag: true },
    };
    const response = await post({ model: 'gpt-5.4@developer', messages, ...extra });
    assert.equal(response.statusCode, 200);
    const sent = t.lastUpstreamBody();
    for (const [key, value] of Object.entries(extra)) assert.deepEqual(sent[key], value, key);
    assert.deepEqual(sent.messages, messages);
  });

  test('returns tool calls', async () => {
    const tools = [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
    ];
    const response = await post({
      model: 'claude-sonnet@cloud_b',
      messages: [{ role: 'user', content: 'Use get_weather in Paris' }],
      tools,
    });
    assert.equal(response.statusCode, 200);
    const choice = response.json().choices[0];
    assert.equal(choice.finish_reason, 'tool_calls');
    assert.equal(choice.message.tool_calls[0].function.name, 'get_weather');
    assert.deepEqual(JSON.parse(choice.message.tool_calls[0].function.arguments), { city: 'Paris' });
    // cloud_b serves Claude through Vertex: the model is in the path, never in the body.
    const sent = t.sim.received.at(-1);
    assert.match(sent?.path ?? '', /\/publishers\/anthropic\/models\/claude-sonnet-4-6:rawPredict$/);
    assert.equal('model' in t.lastUpstreamBody(), false);
    assert.equal(t.lastUpstreamBody().anthropic_version, 'vertex-2023-10-16');
  });

  test('validates model and messages with the OpenAI error envelope, still carrying X-Gateway-Applied', async () => {
    const response = await post({ model: 'gpt-5.4', messages: [] });
    assert.equal(response.statusCode, 400);
    assert.equal(response.json().error.code, 'invalid_request');
    assert.equal(response.json().error.type, 'invalid_request_error');
    assert.equal(response.headers['x-gateway-applied'], '');
  });
});

describe('budget: a provider that cannot pay', () => {
  let t: ChatTestApp;
  before(async () => {
    t = await startChatApp({ allocations: { developer: 10, cloud_c: 10 } });
  });
  after(() => t.close());

  test('an automatic choice moves on to a provider with budget; an explicit one answers 402', async () => {
    const post = (model: string) =>
      t.app.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: t.headers(),
        payload: { model, messages, max_completion_tokens: 100 },
      });
    const first = await post('gpt-5.4');
    assert.match(
      String(first.headers['x-gateway-applied']),
      /provider=developer/,
      'sticky choice: developer',
    );
    const [row] = await t.settledUsage(1);
    // Leave developer nothing. The sticky choice is kept without reading balances, so the
    // reservation is what finds the bucket empty, and the chat path moves on.
    const usd = (row?.cost_micros ?? 0) / 1_000_000;
    await setAllocation(t.database.db, { slug: 'apollo', provider: 'developer', usd });
    // A lowered allocation reaches the instance's budget lease within 1 s (docs/gateway/access.md).
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const second = await post('gpt-5.4');
    assert.equal(second.statusCode, 200);
    assert.match(String(second.headers['x-gateway-applied']), /provider=cloud_c/);
    const explicit = await post('gpt-5.4@developer');
    assert.equal(explicit.statusCode, 402);
    assert.equal(explicit.json().error.code, 'gateway_allocation_exhausted');
    assert.match(
      String(explicit.headers['x-gateway-applied']),
      /model="gpt-5.4-2026-03-05", provider=developer/,
    );
  });
});

describe('budget: a bucket smaller than the worst case', () => {
  let t: ChatTestApp;
  before(async () => {
    t = await startChatApp({ allocations: { developer: 0.01 } });
  });
  after(() => t.close());

  test('is still served: the reservation takes what is left and the settle charges the real cost', async () => {
    // No max tokens: the worst case is the model's whole output allowance (about 1.92 USD for
    // gpt-5.4), far above the bucket's 0.01 USD; the real cost of a short reply is far below.
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: t.headers(),
      payload: { model: 'gpt-5.4@developer', messages },
    });
    assert.equal(response.statusCode, 200);
    const [row] = await t.settledUsage(1);
    assert.equal(row?.reserved_micros, 10_000);
    assert.equal(row?.status, 'ok');
    assert.ok((row?.cost_micros ?? 0) > 0 && (row?.cost_micros ?? 0) < 10_000, `cost ${row?.cost_micros}`);
  });
});
