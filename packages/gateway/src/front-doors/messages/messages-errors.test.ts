/**
 * The Messages front door's edges through HTTP: errors in Anthropic's envelope with the statuses
 * its SDK maps to error classes, both ways of sending the token, API versions, betas passed on
 * or reported, options from the name and the body, and count_tokens.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import Anthropic from '@anthropic-ai/sdk';
import { setRateLimits } from '../../access/admin.ts';
import { anthropicClient, type ChatTestApp, startChatApp } from '../chat-completions/testing.ts';

let t: ChatTestApp;
let url: string;
let client: Anthropic;

before(async () => {
  t = await startChatApp();
  url = await t.app.listen({ port: 0, host: '127.0.0.1' });
  client = anthropicClient(url, t.token);
});
after(() => t.close());

const hello = [{ role: 'user' as const, content: 'Hello' }];

/** A raw POST, for what the SDK would not send (x-api-key with a PAT, other versions, bad bodies). */
async function post(path: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01', ...headers },
    body: JSON.stringify(body),
  });
  return {
    response,
    json: (await response.json()) as {
      type?: string;
      error?: { type: string; message: string; code: string };
    } & Record<string, unknown>,
  };
}

function envelope(json: Awaited<ReturnType<typeof post>>['json'], type: string, code: string): void {
  assert.equal(json.type, 'error');
  assert.equal(json.error?.type, type);
  assert.equal(json.error?.code, code);
  assert.equal(typeof json.error?.message, 'string');
  assert.equal(typeof json.request_id, 'string');
}

describe('errors in the Anthropic envelope', () => {
  test('401 with a bad Bearer token: the SDK raises AuthenticationError', async () => {
    const bad = anthropicClient(url, 'not.a.token');
    await assert.rejects(
      bad.messages.create({ model: 'claude-sonnet', max_tokens: 10, messages: hello }),
      (error) => {
        assert.ok(error instanceof Anthropic.AuthenticationError);
        assert.equal(error.status, 401);
        assert.equal(error.type, 'authentication_error');
        assert.match(error.message, /x-api-key/);
        return true;
      },
    );
  });

  test('x-api-key: a bad key is 401, the PAT as key is served, no token is 401 missing_token', async () => {
    const refused = await post(
      '/v1/messages',
      { model: 'claude-sonnet', max_tokens: 10, messages: hello },
      {
        'x-api-key': 'garbage',
      },
    );
    assert.equal(refused.response.status, 401);
    envelope(refused.json, 'authentication_error', 'gateway_invalid_token');
    const served = await post(
      '/v1/messages',
      { model: 'claude-sonnet', max_tokens: 10, messages: hello },
      {
        'x-api-key': t.token,
      },
    );
    assert.equal(served.response.status, 200);
    assert.equal(served.json.type, 'message');
    const missing = await post('/v1/messages', { model: 'claude-sonnet', max_tokens: 10, messages: hello });
    envelope(missing.json, 'authentication_error', 'missing_token');
  });

  test('400 for a bad body (BadRequestError), with X-Gateway-Applied', async () => {
    const body = {
      model: 'claude-sonnet',
      messages: hello,
    } as unknown as Anthropic.MessageCreateParamsNonStreaming;
    await assert.rejects(client.messages.create(body), (error) => {
      assert.ok(error instanceof Anthropic.BadRequestError);
      assert.equal(error.type, 'invalid_request_error');
      assert.match(error.message, /max_tokens/);
      assert.ok(error.headers.get('x-gateway-applied') !== null);
      return true;
    });
  });

  test('404 for an unknown model (NotFoundError), and for unknown paths under /v1/messages', async () => {
    await assert.rejects(
      client.messages.create({ model: 'claude-nope', max_tokens: 10, messages: hello }),
      (error) => {
        assert.ok(error instanceof Anthropic.NotFoundError);
        assert.equal(error.type, 'not_found_error');
        return true;
      },
    );
    const unknown = await post('/v1/messages/batches', {}, { authorization: `Bearer ${t.token}` });
    assert.equal(unknown.response.status, 404);
    envelope(unknown.json, 'not_found_error', 'not_found');
  });

  test('an upstream 429 is a RateLimitError with Retry-After; an overloaded provider is 529', async () => {
    const failing = (status: number) =>
      client.messages.create({
        model: 'claude-sonnet@developer',
        max_tokens: 10,
        messages: hello,
        x_simulator: { fail_status: status, retry_after: '7' },
      } as Anthropic.MessageCreateParamsNonStreaming);
    await assert.rejects(failing(429), (error) => {
      assert.ok(error instanceof Anthropic.RateLimitError);
      assert.equal(error.type, 'rate_limit_error');
      assert.equal(error.headers.get('retry-after'), '7');
      return true;
    });
    await assert.rejects(failing(529), (error) => {
      assert.ok(error instanceof Anthropic.InternalServerError);
      assert.equal(error.status, 529);
      assert.equal(error.type, 'overloaded_error');
      return true;
    });
  });

  test('a failure after the stream started is an `error` event the SDK raises', async () => {
    const stream = client.messages.stream({
      model: 'claude-sonnet@developer',
      max_tokens: 64,
      messages: hello,
      x_simulator: { fail_after_tokens: 2 },
    } as Anthropic.MessageStreamParams);
    await assert.rejects(stream.finalMessage(), (error: Error) => {
      assert.match(error.message, /api_error|failed/);
      assert.doesNotMatch(error.message, /internal\.example\.com/);
      return true;
    });
  });

  test('/v1/chat/completions keeps the OpenAI envelope', async () => {
    const { json } = await post('/v1/chat/completions', { model: 'gpt-5.4', messages: hello });
    assert.equal(json.type, undefined);
    assert.equal(json.error?.code, 'missing_token');
  });
});

describe('versions, betas and options', () => {
  const auth = () => ({ authorization: `Bearer ${t.token}` });

  test('both anthropic-version values are served; another is a clear 400', async () => {
    for (const version of ['2023-06-01', '2026-10-21']) {
      const { response } = await post(
        '/v1/messages',
        { model: 'claude-haiku', max_tokens: 10, messages: hello },
        {
          ...auth(),
          'anthropic-version': version,
        },
      );
      assert.equal(response.status, 200, version);
    }
    const { response, json } = await post(
      '/v1/messages',
      { model: 'claude-haiku', max_tokens: 10, messages: hello },
      {
        ...auth(),
        'anthropic-version': '2099-01-01',
      },
    );
    assert.equal(response.status, 400);
    envelope(json, 'invalid_request_error', 'invalid_request');
    assert.match(json.error?.message ?? '', /2099-01-01.*2023-06-01 or 2026-10-21/);
  });

  test('anthropic-beta reaches an Anthropic-API upstream and is reported where it cannot go', async () => {
    const betas = 'claude-code-20250219,interleaved-thinking-2025-05-14';
    const headers = { ...auth(), 'anthropic-beta': betas };
    const body = { max_tokens: 10, messages: hello };
    const passed = await post('/v1/messages', { ...body, model: 'claude-sonnet@developer' }, headers);
    assert.equal(passed.response.status, 200);
    assert.equal(t.sim.received.at(-1)?.headers['anthropic-beta'], betas);
    assert.equal(passed.response.headers.get('x-gateway-ignored'), null);
    for (const model of ['gpt-5.4-mini@developer', 'claude-sonnet@cloud_a']) {
      const reported = await post('/v1/messages', { ...body, model }, headers);
      assert.equal(reported.response.status, 200, model);
      assert.equal(reported.response.headers.get('x-gateway-ignored'), `anthropic-beta="${betas}"`, model);
    }
  });

  test('modifiers and @provider in the name; output_config.effort as an effort input', async () => {
    const named = await post(
      '/v1/messages',
      { model: 'claude-sonnet:low@cloud_b', max_tokens: 4096, messages: hello },
      auth(),
    );
    assert.equal(named.response.status, 200);
    assert.match(named.response.headers.get('x-gateway-applied') ?? '', /provider=cloud_b, effort=low/);
    assert.deepEqual(t.lastUpstreamBody().output_config, { effort: 'low' });
    const body = {
      model: 'claude-sonnet@developer',
      max_tokens: 4096,
      messages: hello,
      output_config: { effort: 'medium' },
    };
    const fromBody = await post('/v1/messages', body, auth());
    assert.match(fromBody.response.headers.get('x-gateway-applied') ?? '', /effort=medium/);
    const header = await post('/v1/messages', body, { ...auth(), 'x-gateway-effort': 'high' });
    assert.match(header.response.headers.get('x-gateway-applied') ?? '', /effort=high/, 'the header wins');
  });
});

describe('count_tokens', () => {
  test("Anthropic's own counter on developer and Vertex's on cloud_b, free; the estimate elsewhere", async () => {
    const before = (await t.settledUsage(0)).length;
    const params = {
      model: 'claude-sonnet@developer',
      messages: [{ role: 'user' as const, content: 'Count me, please.' }],
    };
    const { data, response } = await client.messages.countTokens(params).withResponse();
    assert.equal(response.headers.get('x-gateway-token-count'), 'upstream');
    assert.equal(t.sim.received.at(-1)?.path, '/anthropic/v1/messages/count_tokens');
    const answered = await client.messages.create({ ...params, max_tokens: 10 });
    assert.equal(data.input_tokens, answered.usage.input_tokens, 'the count is what the answer is billed');

    const onVertex = await client.messages
      .countTokens({ ...params, model: 'claude-sonnet@cloud_b' })
      .withResponse();
    assert.equal(onVertex.response.headers.get('x-gateway-token-count'), 'upstream', "Vertex's own counter");
    assert.match(
      t.sim.received.at(-1)?.path ?? '',
      /\/publishers\/anthropic\/models\/count-tokens:rawPredict$/,
    );
    assert.equal(onVertex.data.input_tokens, data.input_tokens);

    const estimated = await client.messages.countTokens({ ...params, model: 'gpt-5.4-mini' }).withResponse();
    assert.equal(estimated.response.headers.get('x-gateway-token-count'), 'estimate');
    assert.ok(estimated.data.input_tokens > 0);
    await sleep(50);
    const rows = await t.database.db.selectFrom('usage').select('id').execute();
    assert.equal(rows.length, before + 1, 'only the answered message is in the ledger');
  });

  test('authentication applies', async () => {
    const { response, json } = await post('/v1/messages/count_tokens', {
      model: 'claude-sonnet',
      messages: hello,
    });
    assert.equal(response.status, 401);
    envelope(json, 'authentication_error', 'missing_token');
  });
});

test('429 from the gateway rate limits, in the Anthropic envelope', async (ctx) => {
  const gw = await startChatApp();
  ctx.after(() => gw.close());
  await setRateLimits(gw.database.db, { slug: 'apollo', scope: 'project', change: { requestsPerMinute: 1 } });
  await sleep(1_050);
  const send = () =>
    gw.app.inject({
      method: 'POST',
      url: '/v1/messages',
      headers: gw.headers(),
      payload: { model: 'claude-haiku', max_tokens: 10, messages: hello },
    });
  assert.equal((await send()).statusCode, 200);
  const refused = await send();
  assert.equal(refused.statusCode, 429);
  const json = refused.json();
  assert.equal(json.type, 'error');
  assert.equal(json.error.type, 'rate_limit_error');
  assert.equal(json.error.code, 'rate_limit_exceeded');
  assert.ok(Number(refused.headers['retry-after']) >= 1);
});
