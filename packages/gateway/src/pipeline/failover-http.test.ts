/**
 * Failover and retries through HTTP: `developer`'s OpenAI endpoint is a local server answering
 * what each test scripts; `cloud_c` (Azure OpenAI, simulated) serves the same models and is
 * healthy. docs/gateway/models-and-routing.md, "Failures and failover".
 */
import assert from 'node:assert/strict';
import { describe, test, type TestContext } from 'node:test';
import {
  type ChatTestApp,
  chatCompletionBody,
  scriptedDeveloper,
  type UpstreamScript,
} from '../front-doors/chat-completions/testing.ts';

async function gateway(
  t: TestContext,
  script: UpstreamScript,
): Promise<{ gateway: ChatTestApp; hits: () => number }> {
  // The most budget: every new automatic choice goes to developer first.
  const { app, hits } = await scriptedDeveloper(t, script, { developer: 1_000, cloud_c: 100 });
  return { gateway: app, hits };
}

const status =
  (code: number, headers: Record<string, string> = {}): UpstreamScript =>
  (response) =>
    response
      .writeHead(code, { 'content-type': 'application/json', ...headers })
      .end(JSON.stringify({ error: { message: `failed with ${code}`, type: 'server_error' } }));

function post(app: ChatTestApp, model: string, extra: Record<string, unknown> = {}) {
  return app.app.inject({
    method: 'POST',
    url: '/v1/chat/completions',
    headers: app.headers({ 'content-type': 'application/json' }),
    payload: JSON.stringify({ model, messages: [{ role: 'user', content: 'Hello' }], ...extra }),
  });
}

const attemptsOf = (response: { headers: Record<string, unknown> }) =>
  String(response.headers['x-gateway-attempts']);

describe('automatic selection fails over', () => {
  test('a 429 goes to the next provider; the headers name it and list both attempts', async (t) => {
    const { gateway: app, hits } = await gateway(t, status(429, { 'retry-after': '1' }));
    const response = await post(app, 'gpt-5.4');
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(hits(), 1);
    assert.match(String(response.headers['x-gateway-applied']), /provider=cloud_c/);
    // The sample shown in docs/gateway/models-and-routing.md, exactly.
    assert.equal(
      attemptsOf(response),
      'developer;model="gpt-5.4-2026-03-05";outcome=rate_limited;status=429, cloud_c;model="gpt-5.4-2026-03-05";outcome=ok',
    );
    const rows = await app.settledUsage(2);
    assert.deepEqual(
      rows.map((row) => [row.provider, row.model, row.status, Number(row.cost_micros) > 0]),
      [
        ['developer', 'gpt-5.4-2026-03-05', 'error', false],
        ['cloud_c', 'gpt-5.4-2026-03-05', 'ok', true],
      ],
      'each attempt on its own bucket; the failed one costs nothing',
    );
  });

  test('streamed too: a 503 before the stream started is failed over, the stream is complete', async (t) => {
    const { gateway: app } = await gateway(t, status(503));
    const response = await post(app, 'gpt-5.4', { stream: true });
    assert.equal(response.statusCode, 200, response.body);
    assert.ok(response.body.endsWith('data: [DONE]\n\n'));
    assert.match(attemptsOf(response), /^developer;.*outcome=server;status=503, cloud_c;.*outcome=ok$/);
  });

  test('a client error is never sent elsewhere', async (t) => {
    const { gateway: app, hits } = await gateway(t, status(400));
    const response = await post(app, 'gpt-5.4');
    assert.equal(response.statusCode, 400, response.body);
    assert.equal(hits(), 1);
    assert.match(attemptsOf(response), /^developer;.*outcome=client;status=400$/);
  });
});

describe('an explicit provider is retried, never replaced', () => {
  test('429 with Retry-After: retried after it, twice, then passed through with its Retry-After', async (t) => {
    const { gateway: app, hits } = await gateway(t, status(429, { 'retry-after': '1' }));
    const started = performance.now();
    const response = await post(app, 'gpt-5.4@developer');
    const elapsed = performance.now() - started;
    assert.equal(response.statusCode, 429, response.body);
    assert.equal(response.headers['retry-after'], '1');
    assert.equal(hits(), 3, 'the call and GATEWAY_SAME_PROVIDER_RETRIES (2) retries');
    assert.ok(elapsed >= 1_900, `waited the Retry-After before each retry (${Math.round(elapsed)} ms)`);
    assert.equal(attemptsOf(response).split(', ').length, 3);
    assert.ok(!attemptsOf(response).includes('cloud_c'));
  });

  test('503 without Retry-After: retried after a short backoff', async (t) => {
    const { gateway: app, hits } = await gateway(t, (response, hit) =>
      hit < 3
        ? status(503)(response, hit)
        : response
            .writeHead(200, { 'content-type': 'application/json' })
            .end(chatCompletionBody({ prompt_tokens: 10, completion_tokens: 2 })),
    );
    const response = await post(app, 'gpt-5.4@developer');
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(hits(), 3);
    assert.match(
      attemptsOf(response),
      /outcome=server;status=503, developer;.*outcome=server;status=503, developer;/,
    );
  });

  test('a Retry-After longer than GATEWAY_RETRY_MAX_WAIT_MS goes to the client at once', async (t) => {
    const { gateway: app, hits } = await gateway(t, status(429, { 'retry-after': '30' }));
    const response = await post(app, 'gpt-5.4@developer');
    assert.equal(response.statusCode, 429);
    assert.equal(response.headers['retry-after'], '30');
    assert.equal(hits(), 1);
  });

  test('a 500 may have been processed: passed through, not retried', async (t) => {
    const { gateway: app, hits } = await gateway(t, status(500));
    const response = await post(app, 'gpt-5.4@developer');
    assert.equal(response.statusCode, 502, response.body);
    assert.equal(hits(), 1);
  });
});
