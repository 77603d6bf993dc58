/**
 * What spans say about the answer (docs/gateway/tracing.md): why the model stopped and which
 * model served, for streamed passthrough answers too (same-API upstream, chunks forwarded), and
 * nothing of the kind on token counts, which generate nothing.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { byKind, CLIENT, chat, PROMPT, SERVER, tracedApp } from './traced-app.ts';

const usageKeys = (attributes: Readonly<Record<string, unknown>>) =>
  Object.keys(attributes).filter((key) => key.startsWith('gen_ai.usage.'));

describe('the answer on the spans', () => {
  test('a streamed passthrough answer records its finish reason on both spans', async (t) => {
    const { chat: app, receiver, close } = await tracedApp(t, {});
    // max_tokens cuts the simulated reply short: the reason is `length`, not a default `stop`.
    const response = await chat(app, 'gpt-5.4@cloud_c', { stream: true, max_tokens: 3 });
    assert.equal(response.statusCode, 200, response.body);
    assert.match(response.body, /"finish_reason":"length"/);
    await close();
    const [server] = byKind(receiver.spans, SERVER);
    const [client] = byKind(receiver.spans, CLIENT);
    assert.deepEqual(server?.attributes['gen_ai.response.finish_reasons'], ['length']);
    assert.deepEqual(client?.attributes['gen_ai.response.finish_reasons'], ['length']);
  });

  test('gen_ai.response.model is the model the answer names, JSON and streamed', async (t) => {
    const { chat: app, receiver, close } = await tracedApp(t, {});
    const served = 'gpt-5.4-2026-03-05-eu';
    for (const stream of [false, true]) {
      const response = await chat(app, 'gpt-5.4@cloud_c', { stream, x_simulator: { served_model: served } });
      assert.equal(response.statusCode, 200, response.body);
    }
    await close();
    const servers = byKind(receiver.spans, SERVER);
    const clients = byKind(receiver.spans, CLIENT);
    assert.equal(servers.length, 2);
    for (const span of [...servers, ...clients])
      assert.equal(span.attributes['gen_ai.response.model'], served, span.name);
    assert.ok(servers.every((span) => span.attributes['gen_ai.request.model'] === 'gpt-5.4@cloud_c'));
    assert.ok(clients.every((span) => span.attributes['gen_ai.request.model'] === 'gpt-5.4-2026-03-05'));
  });

  test('token counts are count_tokens spans without usage, finish reason or response model', async (t) => {
    const { chat: app, receiver, close } = await tracedApp(t, {});
    const messages = await app.app.inject({
      method: 'POST',
      url: '/v1/messages/count_tokens',
      headers: app.headers({ 'content-type': 'application/json' }),
      payload: { model: 'claude-sonnet@developer', messages: [{ role: 'user', content: PROMPT }] },
    });
    assert.equal(messages.statusCode, 200, messages.body);
    const gemini = await app.app.inject({
      method: 'POST',
      url: '/v1beta/models/gemini-2.5-flash@developer:countTokens',
      headers: { 'x-goog-api-key': app.token },
      payload: { contents: [{ role: 'user', parts: [{ text: PROMPT }] }] },
    });
    assert.equal(gemini.statusCode, 200, gemini.body);
    await close();
    const servers = byKind(receiver.spans, SERVER);
    assert.deepEqual(servers.map((span) => span.name).sort(), [
      'count_tokens claude-sonnet@developer',
      'count_tokens gemini-2.5-flash',
    ]);
    for (const { attributes } of servers) {
      assert.equal(attributes['gen_ai.operation.name'], 'count_tokens');
      assert.deepEqual(usageKeys(attributes), []);
      assert.equal(attributes['gen_ai.response.finish_reasons'], undefined);
      assert.equal(attributes['gen_ai.response.model'], undefined);
      assert.equal(attributes['gateway.cost_usd'], undefined);
    }
    assert.deepEqual(byKind(receiver.spans, CLIENT), [], 'a count is not a generation attempt');
  });
});

