/**
 * The Responses front door's edges through HTTP: errors in OpenAI's envelope with the statuses
 * the SDK maps to error classes, what the gateway refuses before reserving anything
 * (`previous_response_id`, a malformed input, what a translation cannot express), upstream and
 * gateway rate limits, a failure after the stream started, and options from the name and body.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { setRateLimits } from '../../access/admin.ts';
import { type ChatTestApp, startChatApp } from '../chat-completions/testing.ts';

let t: ChatTestApp;
let url: string;
let client: OpenAI;

before(async () => {
  t = await startChatApp();
  url = `${await t.app.listen({ port: 0, host: '127.0.0.1' })}/v1`;
  client = new OpenAI({ baseURL: url, apiKey: t.token, maxRetries: 0 });
});
after(() => t.close());

async function post(body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${url}/responses`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${t.token}`, ...headers },
    body: JSON.stringify(body),
  });
  return { response, text: await response.text() };
}

function events(text: string): Array<{ event: string; data: Record<string, unknown> }> {
  return text
    .split('\n\n')
    .filter((block) => block.startsWith('event: '))
    .map((block) => {
      const [name = '', data = ''] = block.split('\n');
      return { event: name.slice(7), data: JSON.parse(data.slice(6)) as Record<string, unknown> };
    });
}

describe('refused before anything is reserved, in the OpenAI envelope', () => {
  test('401: a bad token raises AuthenticationError with how to get one', async () => {
    const bad = new OpenAI({ baseURL: url, apiKey: 'not.a.token', maxRetries: 0 });
    await assert.rejects(bad.responses.create({ model: 'gpt-5.4-mini', input: 'hi' }), (error) => {
      assert.ok(error instanceof OpenAI.AuthenticationError);
      assert.equal(error.code, 'gateway_invalid_token');
      assert.match(error.message, /dashboard|gatewayctl/);
      return true;
    });
  });

  test('previous_response_id is a 400 naming the parameter and saying what to do; nothing is sent', async () => {
    const sent = t.sim.received.length;
    const rows = (await t.settledUsage(0)).length;
    await assert.rejects(
      client.responses.create({
        model: 'gpt-5.4-mini',
        input: 'and then?',
        previous_response_id: 'resp_123',
      }),
      (error) => {
        assert.ok(error instanceof OpenAI.BadRequestError);
        assert.equal(error.code, 'invalid_request');
        assert.equal(error.param, 'previous_response_id');
        assert.match(error.message, /stores no responses.*whole conversation/);
        return true;
      },
    );
    assert.equal(t.sim.received.length, sent);
    assert.equal((await t.settledUsage(0)).length, rows);
  });

  test('an input that is neither a string nor a list, and a missing model, are 400s', async () => {
    const bad = await post({ model: 'gpt-5.4-mini', input: { role: 'user' } });
    assert.equal(bad.response.status, 400, bad.text);
    assert.equal((JSON.parse(bad.text) as { error: { param: string } }).error.param, 'input');
    const missing = await post({ input: 'hi' });
    assert.equal(missing.response.status, 400);
    assert.equal((JSON.parse(missing.text) as { error: { code: string } }).error.code, 'invalid_request');
  });

  test('an unknown model is NotFoundError; X-Gateway-Applied is on errors too', async () => {
    const { response, text } = await post({ model: 'gpt-0', input: 'hi' });
    assert.equal(response.status, 404, text);
    assert.equal((JSON.parse(text) as { error: { code: string } }).error.code, 'model_not_found');
    assert.ok(response.headers.get('x-gateway-applied') !== null);
  });

  test('what a translation cannot express is a 400 and the budget goes back', async () => {
    const { response, text } = await post({
      model: 'claude-sonnet@developer',
      input: 'Run code',
      tools: [{ type: 'code_interpreter', container: { type: 'auto' } }],
    });
    assert.equal(response.status, 400, text);
    assert.match(text, /cannot be sent to the selected provider: tools of type 'code_interpreter'/);
    const rows = await t.settledUsage(0);
    assert.ok(rows.every((row) => row.status !== 'ok' || row.cost_micros > 0));
    assert.equal(rows.at(-1)?.cost_micros ?? 0, 0);
  });
});

describe('upstream failures', () => {
  test('a provider 429 stays 429 with its Retry-After (RateLimitError)', async () => {
    const { response, text } = await post({
      model: 'gpt-5.4-mini@developer',
      input: 'hi',
      x_simulator: { fail_status: 429, retry_after: '7' },
    });
    assert.equal(response.status, 429, text);
    assert.equal(response.headers.get('retry-after'), '7');
    const error = (JSON.parse(text) as { error: { code: string; message: string } }).error;
    assert.equal(error.code, 'rate_limited');
    assert.doesNotMatch(error.message, /internal|sk-sim|10\.0\.0\.7/);
  });

  for (const provider of ['developer', 'cloud_c']) {
    test(`${provider}: a failure after the stream started is an error event, then response.failed`, async () => {
      const { response, text } = await post({
        model: `gpt-5.4-mini@${provider}`,
        input: 'hi',
        stream: true,
        x_simulator: { fail_after_tokens: 2 },
      });
      assert.equal(response.status, 200);
      const all = events(text);
      const names = all.map((event) => event.event);
      assert.ok(names.includes('response.output_text.delta'), text);
      assert.deepEqual(names.slice(-2), ['error', 'response.failed']);
      assert.doesNotMatch(text, /internal\.example|sim-node/);
      const error = all.at(-2)?.data.error as { code: string; message: string };
      assert.equal(error.code, 'upstream_error');
      // The failure continues the forwarded stream: its numbering, its response, a listed code.
      const numbers = all.map((event) => event.data.sequence_number);
      assert.deepEqual(
        numbers,
        all.map((_, index) => index),
      );
      const failed = all.at(-1)?.data.response as { id: string; status: string; error: { code: string } };
      const created = all[0]?.data.response as { id: string };
      assert.deepEqual([failed.id, failed.status, failed.error.code], [created.id, 'failed', 'server_error']);

      const stream = client.responses.stream({
        model: `gpt-5.4-mini@${provider}`,
        input: 'hi',
        x_simulator: { fail_after_tokens: 2 },
      });
      await assert.rejects(stream.finalResponse(), (thrown) => {
        assert.ok(thrown instanceof OpenAI.APIError);
        assert.match(thrown.message, /failed mid-stream/);
        return true;
      });
    });
  }
});

describe('options from the name and the body', () => {
  test('reasoning.effort and service_tier are header inputs: the name wins, unusable ones are reported', async () => {
    const named = await client.responses
      .create({ model: 'gpt-5.4-mini:high@developer', input: 'hi', reasoning: { effort: 'low' } })
      .withResponse();
    assert.match(named.response.headers.get('x-gateway-applied') ?? '', /effort=high/);
    assert.deepEqual(t.lastUpstreamBody().reasoning, { effort: 'high' });

    const body = await client.responses
      .create({ model: 'gpt-5.4-mini@developer', input: 'hi', reasoning: { effort: 'low', summary: 'auto' } })
      .withResponse();
    assert.match(body.response.headers.get('x-gateway-applied') ?? '', /effort=low/);
    assert.deepEqual(t.lastUpstreamBody().reasoning, { effort: 'low', summary: 'auto' });

    const ignored = await post({
      model: 'gpt-5.4-mini@developer',
      input: 'hi',
      reasoning: { effort: 'ultra' },
    });
    assert.equal(ignored.response.status, 200, ignored.text);
    assert.match(ignored.response.headers.get('x-gateway-ignored') ?? '', /effort=ultra/);

    const flex = await post({ model: 'gpt-5.4@developer', input: 'hi', service_tier: 'flex' });
    assert.equal(flex.response.status, 200, flex.text);
    assert.match(flex.response.headers.get('x-gateway-applied') ?? '', /tier=flex/);
    assert.equal(t.lastUpstreamBody().service_tier, 'flex');
    assert.equal((JSON.parse(flex.text) as { service_tier: string }).service_tier, 'flex');
  });

  test('the body goes to OpenAI as sent, with only the gateway’s edits', async () => {
    await post({
      model: 'gpt-5.4-mini@developer',
      input: [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] }],
      store: false,
      include: ['reasoning.encrypted_content'],
      prompt_cache_key: 'session-1',
      client_metadata: { origin: 'test' },
      text: { verbosity: 'low' },
    });
    const sent = t.lastUpstreamBody();
    assert.equal(sent.model, 'gpt-5.4-mini-2026-03-17');
    assert.equal(sent.store, false);
    assert.deepEqual(sent.include, ['reasoning.encrypted_content']);
    assert.equal(sent.prompt_cache_key, 'session-1');
    assert.deepEqual(sent.client_metadata, { origin: 'test' });
    assert.deepEqual(sent.text, { verbosity: 'low' });
  });
});

test('compression: the conversation is re-encoded as Responses items, the rest goes as sent', async () => {
  const { response, text } = await post(
    {
      model: 'gpt-5.4-mini@developer',
      instructions: 'Be brief.',
      input: [{ role: 'user', content: [{ type: 'input_text', text: 'hi' }] }],
      store: false,
      prompt_cache_key: 'k',
    },
    { 'x-gateway-compression': 'compact' },
  );
  assert.equal(response.status, 200, text);
  assert.match(response.headers.get('x-gateway-applied') ?? '', /compression=compact/);
  assert.equal((JSON.parse(text) as { object: string }).object, 'response');
  const sent = t.lastUpstreamBody();
  assert.equal(t.sim.received.at(-1)?.path, '/openai/v1/responses');
  assert.deepEqual(sent.input, [
    { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Be brief.' }] },
    { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
  ]);
  assert.equal('instructions' in sent, false);
  assert.deepEqual([sent.store, sent.prompt_cache_key], [false, 'k']);
});

test('a translated stream that fails midway: the encoded events so far, then error and response.failed', async (ctx) => {
  const gw = await startChatApp({ behaviour: { failAfterTokens: 2 } });
  ctx.after(() => gw.close());
  const response = await gw.app.inject({
    method: 'POST',
    url: '/v1/responses',
    headers: gw.headers(),
    payload: { model: 'claude-sonnet@developer', input: 'hi', stream: true },
  });
  assert.equal(response.statusCode, 200);
  const names = events(response.body).map((event) => event.event);
  assert.deepEqual(names.slice(0, 4), [
    'response.created',
    'response.in_progress',
    'response.output_item.added',
    'response.content_part.added',
  ]);
  assert.deepEqual(names.slice(-4), [
    'response.output_text.delta',
    'response.output_text.delta',
    'error',
    'response.failed',
  ]);
  assert.doesNotMatch(response.body, /internal\.example|sim-node/);
  const [row] = await gw.settledUsage(1);
  assert.ok(row && row.completion_tokens > 0 && row.cost_micros > 0, 'the partial output is charged');
});

test('429 from the gateway rate limits, with the x-ratelimit-* headers', async (ctx) => {
  const gw = await startChatApp();
  ctx.after(() => gw.close());
  await setRateLimits(gw.database.db, { slug: 'apollo', scope: 'project', change: { requestsPerMinute: 1 } });
  await sleep(1_050);
  const send = () =>
    gw.app.inject({
      method: 'POST',
      url: '/v1/responses',
      headers: gw.headers(),
      payload: { model: 'gpt-5.4-mini@developer', input: 'hi' },
    });
  const first = await send();
  assert.equal(first.statusCode, 200, first.body);
  assert.equal(first.headers['x-ratelimit-limit-requests'], '1');
  const refused = await send();
  assert.equal(refused.statusCode, 429, refused.body);
  assert.equal(refused.json().error.code, 'rate_limit_exceeded');
  assert.ok(Number(refused.headers['retry-after']) >= 1);
});
