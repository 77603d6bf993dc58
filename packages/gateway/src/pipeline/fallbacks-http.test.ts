/**
 * A client's fallback list at work through HTTP: when `model` cannot serve, the next entry does,
 * each attempt on its own provider's bucket. `developer`'s OpenAI endpoint is a local server
 * failing every call; `cloud_c` (Azure OpenAI, simulated) is healthy.
 * docs/gateway/models-and-routing.md, "Fallback lists".
 */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import {
  type ChatTestApp,
  scriptedDeveloper,
  type UpstreamScript,
} from '../front-doors/chat-completions/testing.ts';

function gateway(t: TestContext): Promise<{ app: ChatTestApp; hits: () => number }> {
  const fail: UpstreamScript = (response) =>
    response
      .writeHead(500, { 'content-type': 'application/json' })
      .end(JSON.stringify({ error: { message: 'failed with 500', type: 'server_error' } }));
  // No cloud_b allocation: a Claude model pinned there cannot be reserved for.
  return scriptedDeveloper(t, fail, { developer: 100, cloud_c: 100 });
}

function post(app: ChatTestApp, body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return app.app.inject({
    method: 'POST',
    url: '/v1/chat/completions',
    headers: app.headers({ 'content-type': 'application/json', ...headers }),
    payload: JSON.stringify({ messages: [{ role: 'user', content: 'Hello' }], ...body }),
  });
}

describe('a fallback list serves when the model cannot', () => {
  test('the primary fails upstream: the next entry serves, each attempt on its own bucket', async (t) => {
    const { app, hits } = await gateway(t);
    const response = await post(app, { model: 'gpt-5.4@developer', models: ['gpt-5.4-mini@cloud_c'] });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(hits(), 1, 'a 500 may have been processed: not retried on the same provider');
    assert.match(
      String(response.headers['x-gateway-applied']),
      /model="gpt-5.4-mini-2026-03-17", provider=cloud_c/,
    );
    assert.equal(
      response.headers['x-gateway-attempts'],
      'developer;model="gpt-5.4-2026-03-05";outcome=server;status=502, cloud_c;model="gpt-5.4-mini-2026-03-17";outcome=ok',
    );
    const rows = await app.settledUsage(2);
    assert.deepEqual(
      rows.map((row) => [row.provider, row.status, Number(row.cost_micros) > 0]),
      [
        ['developer', 'error', false],
        ['cloud_c', 'ok', true],
      ],
      'each attempt on its own bucket; the failed one costs nothing',
    );
    assert.equal(
      rows[1]?.model,
      'gpt-5.4-mini-2026-03-17',
      'the entry that served is charged at its own prices',
    );
  });

  test('through the header too; an entry whose bucket is empty is passed over for the next', async (t) => {
    const { app, hits } = await gateway(t);
    const response = await post(
      app,
      { model: 'claude-haiku@cloud_b' },
      { 'x-gateway-fallbacks': 'gpt-5.4@developer, gpt-5.4@cloud_c' },
    );
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(hits(), 1);
    assert.match(String(response.headers['x-gateway-applied']), /provider=cloud_c/);
    const rows = await app.settledUsage(2);
    assert.deepEqual(
      rows.map((row) => [row.provider, row.status]),
      [
        ['developer', 'error'],
        ['cloud_c', 'ok'],
      ],
      'nothing reserved on cloud_b, which has no allocation',
    );
  });

  test('without a list the same failure is the answer', async (t) => {
    const { app } = await gateway(t);
    const response = await post(app, { model: 'gpt-5.4@developer' });
    assert.equal(response.statusCode, 502, response.body);
  });

  test("on /v1/messages: the primary fails, the fallback serves in Anthropic's format", async (t) => {
    const { app, hits } = await gateway(t);
    const response = await app.app.inject({
      method: 'POST',
      url: '/v1/messages',
      headers: app.headers({ 'content-type': 'application/json', 'anthropic-version': '2023-06-01' }),
      payload: JSON.stringify({
        model: 'gpt-5.4@developer',
        models: ['gpt-5.4@cloud_c'],
        max_tokens: 64,
        messages: [{ role: 'user', content: 'Hello' }],
      }),
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(hits(), 1);
    assert.equal((response.json() as { type: string }).type, 'message');
    assert.match(
      String(response.headers['x-gateway-attempts']),
      /^developer;.*outcome=server;status=502, cloud_c;.*outcome=ok$/,
    );
  });

  test('on /v1/responses, streamed, through the header: the fallback serves the whole stream', async (t) => {
    const { app, hits } = await gateway(t);
    const response = await app.app.inject({
      method: 'POST',
      url: '/v1/responses',
      headers: app.headers({ 'content-type': 'application/json', 'x-gateway-fallbacks': 'gpt-5.4@cloud_c' }),
      payload: JSON.stringify({ model: 'gpt-5.4@developer', input: 'Hello', stream: true }),
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(hits(), 1);
    assert.match(response.body, /event: response\.completed/);
    assert.match(String(response.headers['x-gateway-applied']), /provider=cloud_c/);
  });
});
