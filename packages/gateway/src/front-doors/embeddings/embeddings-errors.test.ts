/**
 * What /v1/embeddings refuses, each before anything is reserved or sent, as a catalogued 400 in
 * OpenAI's envelope naming the field; and an embedding model on the chat doors (and a chat model
 * here) as `gateway_wrong_model_kind`.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { after, before, describe, test } from 'node:test';
import { setProjectIpAllow } from '../../access/admin.ts';
import { type ChatTestApp, startChatApp } from '../chat-completions/testing.ts';

let t: ChatTestApp;
before(async () => {
  t = await startChatApp();
});
after(() => t.close());

interface Refusal {
  status: number;
  error: { code?: string; type?: string; message: string; param?: string | null };
}

async function post(url: string, payload: unknown, headers: Record<string, string> = {}): Promise<Refusal> {
  const response = await t.app.inject({
    method: 'POST',
    url,
    headers: t.headers(headers),
    payload: payload as object,
  });
  return { status: response.statusCode, error: response.json().error };
}

const embed = (payload: Record<string, unknown>) => post('/v1/embeddings', payload);

/** How many upstream requests and ledger rows there are so far. */
async function counts(): Promise<{ sent: number; rows: number }> {
  return { sent: t.sim.received.length, rows: (await t.settledUsage(0)).length };
}

/** Nothing reached an upstream and nothing was reserved since `before`. */
async function nothingHappened(before: { sent: number; rows: number }): Promise<void> {
  assert.deepEqual(await counts(), before, 'nothing sent upstream, no ledger row');
}

test('without a token: 401 missing_token, nothing sent', async () => {
  const before = await counts();
  const response = await t.app.inject({
    method: 'POST',
    url: '/v1/embeddings',
    payload: { model: 'text-embedding-3-small', input: 'a' },
  });
  assert.equal(response.statusCode, 401);
  assert.equal(response.json().error.code, 'missing_token');
  await nothingHappened(before);
});

describe('input shapes', () => {
  const cases: [string, unknown, string][] = [
    ['missing', undefined, 'input'],
    ['an object', { text: 'hi' }, 'input'],
    ['an empty string', '', 'input'],
    ['an empty list', [], 'input'],
    ['an empty string in a list', ['a', ''], 'input[1]'],
    ['texts and token ids mixed', ['a', 1], 'input[0]'],
    ['an empty token array', [[1, 2], []], 'input[1]'],
    ['a negative token id', [[1, -2]], 'input[0]'],
    ['a fractional token id', [1.5], 'input[0]'],
  ];
  for (const [name, input, param] of cases) {
    test(`${name}: 400 invalid_request naming ${param}`, async () => {
      const sent = await counts();
      const payload = { model: 'text-embedding-3-small', ...(input === undefined ? {} : { input }) };
      const { status, error } = await embed(payload);
      assert.equal(status, 400);
      assert.equal(error.code, 'invalid_request');
      assert.equal(error.type, 'invalid_request_error');
      assert.equal(error.param, param);
      if (input !== undefined) assert.match(error.message, /'input' must be a non-empty string, an array of/);
      await nothingHappened(sent);
    });
  }

  test('unknown fields and a bad encoding_format are refused by the schema', async () => {
    const unknown = await embed({ model: 'text-embedding-3-small', input: 'a', temperature: 1 });
    assert.equal(unknown.status, 400);
    assert.equal(unknown.error.code, 'invalid_request');
    const format = await embed({ model: 'text-embedding-3-small', input: 'a', encoding_format: 'hex' });
    assert.equal(format.status, 400);
    assert.equal(format.error.param, 'encoding_format');
  });
});

describe('limits', () => {
  test('more inputs than the model takes a request', async () => {
    const sent = await counts();
    const input = Array.from({ length: 2049 }, (_, i) => `text ${i}`);
    const { status, error } = await embed({ model: 'text-embedding-3-small', input });
    assert.equal(status, 400);
    assert.equal(error.param, 'input');
    assert.equal(
      error.message,
      "'input' holds 2049 items; text-embedding-3-small takes at most 2048 a request.",
    );
    await nothingHappened(sent);
  });

  test('a token array longer than the model takes', async () => {
    const { status, error } = await embed({
      model: 'text-embedding-3-small',
      input: [[1], new Array(8193).fill(7)],
    });
    assert.equal(status, 400);
    assert.equal(error.param, 'input[1]');
    assert.match(error.message, /is 8193 tokens; text-embedding-3-small takes at most 8192 an input/);
  });

  test('dimensions the model does not give, by range and by value', async () => {
    const sent = await counts();
    const small = await embed({ model: 'text-embedding-3-small', input: 'a', dimensions: 2000 });
    assert.equal(small.status, 400);
    assert.equal(small.error.param, 'dimensions');
    assert.equal(
      small.error.message,
      "'dimensions' is 2000; text-embedding-3-small gives vectors of 1 to 1536 dimensions.",
    );
    const titan = await embed({ model: 'titan-embed-text-v2', input: 'a', dimensions: 300 });
    assert.equal(
      titan.error.message,
      "'dimensions' is 300; titan-embed-text-v2 gives vectors of 256, 512 or 1024 dimensions.",
    );
    const cohere = await embed({ model: 'cohere-embed-english-v3', input: 'a', dimensions: 512 });
    assert.equal(
      cohere.error.message,
      "'dimensions' is 512; cohere-embed-english-v3 gives vectors of 1024 only dimensions.",
    );
    const zero = await embed({ model: 'text-embedding-3-small', input: 'a', dimensions: 0 });
    assert.equal(zero.status, 400);
    assert.equal(zero.error.param, 'dimensions');
    await nothingHappened(sent);
  });

  test("a model's full length may be asked even where it cannot shorten (not sent upstream)", async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/embeddings',
      headers: t.headers(),
      payload: { model: 'cohere-embed-english-v3', input: 'a', dimensions: 1024 },
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(t.lastUpstreamBody().dimensions, undefined);
  });

  test('token ids to a model of another tokenizer: 400, nothing charged', async () => {
    const before = await counts();
    const { status, error } = await embed({ model: 'gemini-embedding-001', input: [[1, 2, 3]] });
    assert.equal(status, 400);
    assert.equal(error.code, 'invalid_request');
    assert.match(error.message, /input\[0\] is an array of token ids; .* embeds text only/);
    assert.equal(t.sim.received.length, before.sent, 'nothing sent upstream');
    const rows = (await t.settledUsage(before.rows + 1)).slice(before.rows);
    assert.deepEqual(
      rows.map((row) => [row.status, row.cost_micros]),
      [['error', 0]],
      'the reservation was released',
    );
  });
});

describe('model names', () => {
  test('modifiers that do not apply to an embedding model', async () => {
    for (const model of [
      'text-embedding-3-small:high',
      'text-embedding-3-small:flex',
      'titan-embed-text:compact',
    ]) {
      const { status, error } = await embed({ model, input: 'a' });
      assert.equal(status, 400, model);
      assert.equal(error.code, 'gateway_invalid_model_modifier', model);
      assert.equal(error.param, 'model');
    }
  });

  test('a provider that does not serve the model is a 404', async () => {
    const { status, error } = await embed({ model: 'text-embedding-3-small@cloud_a', input: 'a' });
    assert.equal(status, 404);
    assert.equal(error.code, 'model_not_found');
  });

  test('a chat model on /v1/embeddings', async () => {
    const { status, error } = await embed({ model: 'gpt-5.4-mini', input: 'a' });
    assert.equal(status, 400);
    assert.equal(error.code, 'gateway_wrong_model_kind');
    assert.equal(error.param, 'model');
    assert.equal(
      error.message,
      "The model 'gpt-5.4-mini' is a chat model, which POST /v1/embeddings does not serve; send it to a chat route (POST /v1/chat/completions, /v1/messages, /v1/responses). GET /v1/models lists each model's kind.",
    );
  });

  test('a chat model in the fallback list of /v1/embeddings', async () => {
    const { status, error } = await embed({
      model: 'text-embedding-3-small',
      models: ['claude-haiku'],
      input: 'a',
    });
    assert.equal(status, 400);
    assert.equal(error.code, 'gateway_wrong_model_kind');
    assert.equal(error.param, 'models');
  });
});

describe('an embedding model on the chat doors', () => {
  const hello = [{ role: 'user', content: 'hi' }];
  const expected =
    /^The model 'text-embedding-3-small' is an embedding model, which POST \/v1\/\S+ does not serve; send it to POST \/v1\/embeddings/;

  test('chat completions, responses and messages', async () => {
    const sent = await counts();
    const chat = await post('/v1/chat/completions', { model: 'text-embedding-3-small', messages: hello });
    assert.equal(chat.status, 400);
    assert.equal(chat.error.code, 'gateway_wrong_model_kind');
    assert.match(chat.error.message, expected);
    const responses = await post('/v1/responses', { model: 'text-embedding-3-small', input: 'hi' });
    assert.equal(responses.error.code, 'gateway_wrong_model_kind');
    const messages = await post('/v1/messages', {
      model: 'text-embedding-3-small',
      max_tokens: 16,
      messages: hello,
    });
    assert.equal(messages.status, 400);
    assert.equal(messages.error.type, 'invalid_request_error', "Anthropic's envelope");
    assert.match(messages.error.message, expected);
    const counted = await post('/v1/messages/count_tokens', {
      model: 'text-embedding-3-small',
      messages: hello,
    });
    assert.equal(counted.status, 400);
    const fallback = await post('/v1/chat/completions', {
      model: 'gpt-5.4-mini',
      models: ['gemini-embedding'],
      messages: hello,
    });
    assert.equal(fallback.error.code, 'gateway_wrong_model_kind');
    assert.equal(fallback.error.param, 'models');
    await nothingHappened(sent);
  });

  test("Gemini's generateContent", async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1beta/models/gemini-embedding-001:generateContent',
      headers: { 'x-goog-api-key': t.token },
      payload: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
    });
    assert.equal(response.statusCode, 400);
    assert.equal(response.json().error.status, 'INVALID_ARGUMENT');
    assert.match(response.json().error.message, /is an embedding model/);
  });
});

// Last: it restricts the project for the rest of this file.
test("the project's IP rules: 403 gateway_ip_not_allowed from another address, nothing sent", async () => {
  await setProjectIpAllow(t.database.db, { slug: 'apollo', ipAllow: ['10.0.0.0/8'] });
  await sleep(1_050); // a token's state (its project's rules) is cached for up to 1 s
  const before = await counts();
  const ask = (remoteAddress: string) =>
    t.app.inject({
      method: 'POST',
      url: '/v1/embeddings',
      headers: t.headers(),
      remoteAddress,
      payload: { model: 'text-embedding-3-small', input: 'a' },
    });
  const refused = await ask('192.0.2.44');
  assert.equal(refused.statusCode, 403);
  assert.equal(refused.json().error.code, 'gateway_ip_not_allowed');
  await nothingHappened(before);
  assert.equal((await ask('10.1.2.3')).statusCode, 200);
});
