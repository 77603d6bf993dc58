/**
 * Rate limits through HTTP on the embedded default (in-process limiter): the x-ratelimit-*
 * headers OpenAI sends, 429 `rate_limit_exceeded` with Retry-After, tokens settled from real
 * usage, concurrency, and the official SDK's own retry logic working unchanged.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import OpenAI from 'openai';
import { setRateLimits } from '../../access/admin.ts';
import { type ChatTestApp, sseEvents, startChatApp } from './testing.ts';

/** OpenAI's duration format: `1m0s`, `59.5s`, `20ms`. */
const RESET = /^((\d+m)?\d+(\.\d+)?s|\d+ms)$/;
const messages = [{ role: 'user', content: 'hello' }];
const chat = (gw: ChatTestApp, payload: Record<string, unknown> = {}) =>
  gw.app.inject({
    method: 'POST',
    url: '/v1/chat/completions',
    headers: gw.headers(),
    payload: { model: 'gpt-5.4@developer', messages, max_tokens: 50, ...payload },
  });

/** Limits are read with the token's state, cached up to 1 s: the tests wait for it to age out. */
async function limit(
  gw: ChatTestApp,
  scope: 'project' | 'token',
  change: Parameters<typeof setRateLimits>[1]['change'],
) {
  await setRateLimits(gw.database.db, { slug: 'apollo', scope, change });
  await sleep(1_050);
}

describe('rate limits', () => {
  test('every answer carries the x-ratelimit-* headers; past the limit 429 with Retry-After, nothing reserved', async (t) => {
    const gw = await startChatApp();
    t.after(() => gw.close());
    await limit(gw, 'project', { requestsPerMinute: 3 });
    await limit(gw, 'token', { tokensPerMinute: 100_000 });
    for (let i = 0; i < 3; i++) {
      const response = await chat(gw);
      assert.equal(response.statusCode, 200, response.body);
      assert.equal(response.headers['x-ratelimit-limit-requests'], '3');
      assert.equal(response.headers['x-ratelimit-remaining-requests'], String(2 - i));
      assert.match(String(response.headers['x-ratelimit-reset-requests']), RESET);
      assert.equal(response.headers['x-ratelimit-limit-tokens'], '100000');
      assert.match(String(response.headers['x-ratelimit-reset-tokens']), RESET);
    }
    const rows = (await gw.settledUsage(3)).length;
    const refused = await chat(gw);
    assert.equal(refused.statusCode, 429, refused.body);
    const error = refused.json().error;
    assert.equal(error.code, 'rate_limit_exceeded');
    assert.equal(error.type, 'rate_limit_error');
    assert.match(error.message, /requests per minute of project 'apollo' \(limit 3\)/);
    const retryAfter = Number(refused.headers['retry-after']);
    assert.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`);
    assert.ok(Number(refused.headers['retry-after-ms']) <= retryAfter * 1000);
    assert.equal(refused.headers['x-ratelimit-remaining-requests'], '0');
    assert.equal(refused.headers['x-ratelimit-limit-tokens'], '100000');
    await sleep(50);
    const after = await gw.database.db.selectFrom('usage').select('id').execute();
    assert.equal(after.length, rows, 'a refused request reserves no budget');
  });

  test('tokens per minute count the estimate while running and the real usage once settled', async (t) => {
    const gw = await startChatApp();
    t.after(() => gw.close());
    await limit(gw, 'token', { tokensPerMinute: 10_000 });
    const first = await chat(gw, { max_tokens: 500 });
    assert.equal(first.statusCode, 200, first.body);
    const asked = 10_000 - Number(first.headers['x-ratelimit-remaining-tokens']);
    assert.ok(asked >= 500, `the estimate counts the whole output limit (${asked})`);
    const used = first.json().usage.total_tokens as number;
    assert.ok(used < asked);
    await gw.settledUsage(1);
    const second = await chat(gw, { max_tokens: 500 });
    const remaining = Number(second.headers['x-ratelimit-remaining-tokens']);
    assert.equal(remaining, 10_000 - used - asked, 'the first request now counts what it really used');
  });

  test('a request whose estimate alone passes the tokens limit: 429 that says how to fix it, not to retry', async (t) => {
    const gw = await startChatApp();
    t.after(() => gw.close());
    await limit(gw, 'token', { tokensPerMinute: 1_000 });
    const refused = await chat(gw, { max_tokens: 5_000 });
    assert.equal(refused.statusCode, 429, refused.body);
    assert.equal(refused.json().error.code, 'rate_limit_exceeded');
    assert.match(refused.json().error.message, /lower max_tokens/);
    assert.equal(refused.headers['x-should-retry'], 'false');
    assert.equal(refused.headers['retry-after'], undefined);
    assert.equal((await chat(gw, { max_tokens: 100 })).statusCode, 200);
  });

  test('streamed answers carry the headers too', async (t) => {
    const gw = await startChatApp();
    t.after(() => gw.close());
    await limit(gw, 'token', { requestsPerMinute: 10 });
    const response = await chat(gw, { stream: true });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['x-ratelimit-limit-requests'], '10');
    assert.equal(response.headers['x-ratelimit-remaining-requests'], '9');
    assert.ok(sseEvents(response.body).some((event) => 'done' in event));
  });

  test('concurrency: a second request at once is refused; the OpenAI SDK retries it and succeeds', async (t) => {
    const gw = await startChatApp();
    t.after(() => gw.close());
    await limit(gw, 'token', { concurrentRequests: 1 });
    const slow = chat(gw, { stream: true, x_simulator: { first_token_delay_ms: 300 } });
    await sleep(100);
    const refused = await chat(gw);
    assert.equal(refused.statusCode, 429, refused.body);
    assert.match(refused.json().error.message, /concurrent requests of this token \(limit 1\)/);
    assert.equal(refused.headers['retry-after'], '1');
    assert.equal((await slow).statusCode, 200);

    const address = await gw.app.listen({ port: 0, host: '127.0.0.1' });
    const statuses: number[] = [];
    const client = new OpenAI({
      apiKey: gw.token,
      baseURL: `${address}/v1`,
      maxRetries: 3,
      fetch: async (input, init) => {
        const response = await fetch(input, init);
        statuses.push(response.status);
        return response;
      },
    });
    const body = {
      model: 'gpt-5.4@developer',
      messages: [{ role: 'user' as const, content: 'hi' }],
      max_tokens: 20,
    };
    const answers = await Promise.all([
      client.chat.completions.create({ ...body, x_simulator: { first_token_delay_ms: 300 } } as typeof body),
      sleep(100).then(() => client.chat.completions.create(body)),
    ]);
    assert.equal(answers.length, 2);
    for (const answer of answers) assert.ok(answer.choices[0]?.message.content);
    assert.ok(statuses.includes(429), `the SDK met a 429 and retried: ${statuses.join(', ')}`);
  });
});
