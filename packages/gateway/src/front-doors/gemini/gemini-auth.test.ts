/**
 * Where the Gemini routes read the token (x-goog-api-key, ?key=, Authorization: Bearer) and
 * that no other front door reads the Gemini forms; the `key` query value is kept out of logs
 * and answers.
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { type ChatTestApp, startChatApp } from '../chat-completions/testing.ts';

let t: ChatTestApp;
const logs: string[] = [];

before(async () => {
  const logStream = new PassThrough();
  logStream.on('data', (chunk: Buffer) => logs.push(chunk.toString('utf8')));
  t = await startChatApp({ logStream });
});
after(() => t.close());

const chat = { model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'hi' }] };

describe('Gemini token sources', () => {
  it('take the token from x-goog-api-key, ?key= or Authorization: Bearer', async () => {
    for (const [url, headers] of [
      ['/v1beta/models', { 'x-goog-api-key': t.token }],
      [`/v1beta/models?key=${t.token}`, {}],
      ['/v1beta/models', t.headers()],
    ] as const) {
      const response = await t.app.inject({ url, headers });
      assert.equal(response.statusCode, 200, `${url} ${Object.keys(headers).join()}`);
    }
  });

  it('answer a missing token 401 UNAUTHENTICATED saying how Gemini clients send one; x-api-key is not one of them', async () => {
    for (const headers of [{}, { 'x-api-key': t.token }]) {
      const response = await t.app.inject({ url: '/v1beta/models', headers });
      assert.equal(response.statusCode, 401);
      const { error } = response.json();
      assert.equal(error.status, 'UNAUTHENTICATED');
      assert.equal(error.details[0].reason, 'missing_token');
      assert.match(error.message, /x-goog-api-key: <token>/);
      assert.match(error.message, /key=<token>/);
    }
  });

  it('let Authorization win over x-goog-api-key, as it wins over x-api-key elsewhere', async () => {
    const response = await t.app.inject({
      url: '/v1beta/models',
      headers: { authorization: 'Bearer not-a-token', 'x-goog-api-key': t.token },
    });
    assert.equal(response.statusCode, 401);
    assert.equal(response.json().error.details[0].reason, 'gateway_invalid_token');
  });

  it('refuse a key sent twice in the query rather than pick one', async () => {
    const response = await t.app.inject({ url: `/v1beta/models?key=${t.token}&key=${t.token}` });
    assert.equal(response.statusCode, 400);
    assert.equal(response.json().error.status, 'INVALID_ARGUMENT');
    assert.ok(!response.body.includes(t.token), response.body);
  });

  it('are not read by the other front doors', async () => {
    const byHeader = await t.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { 'x-goog-api-key': t.token },
      payload: chat,
    });
    assert.equal(byHeader.statusCode, 401);
    assert.equal(byHeader.json().error.code, 'missing_token');
    const byQuery = await t.app.inject({
      method: 'POST',
      url: `/v1/chat/completions?key=${t.token}`,
      payload: chat,
    });
    assert.equal(byQuery.statusCode, 401);
    assert.equal(byQuery.json().error.code, 'missing_token');
    const account = await t.app.inject({ url: `/v1/account?key=${t.token}` });
    assert.equal(account.statusCode, 401, 'a route without a query schema does not read it either');
  });
});

describe('the key query parameter', () => {
  it('is redacted from the logs and never echoed in an answer', async () => {
    const secret = 'AIzaSyNotARealKey_1234567890abcdef';
    await t.app.inject({ url: `/v1beta/models?key=${t.token}` });
    const unknown = await t.app.inject({ url: `/v1beta/nothing?key=${secret}` });
    assert.equal(unknown.statusCode, 404);
    assert.ok(!unknown.body.includes(secret), unknown.body);
    const refused = await t.app.inject({ url: `/v1beta/models?key=${secret}` });
    assert.equal(refused.statusCode, 401);
    assert.ok(!refused.body.includes(secret), refused.body);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const text = logs.join('');
    assert.match(text, /\/v1beta\/models\?key=\[redacted\]/);
    assert.ok(!text.includes(t.token), 'the token is not in the logs');
    assert.ok(!text.includes(secret), 'the refused key is not in the logs');
  });
});
