/**
 * What spans say about the answer (docs/gateway/tracing.md): why the model stopped and which
 * model served, for streamed passthrough answers too (same-API upstream, chunks forwarded), and
 * nothing of the kind on token counts, which generate nothing.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadGatewayConfig } from '../config.ts';
import { byKind, CLIENT, chat, PROMPT, SERVER, tracedApp } from './traced-app.ts';
import { createTracing } from './tracing.ts';

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

/** The text parts of a span's `gen_ai.output.messages`, joined. */
function outputText(attributes: Readonly<Record<string, unknown>> | undefined): string | undefined {
  const value = attributes?.['gen_ai.output.messages'];
  if (typeof value !== 'string') return undefined;
  const messages = JSON.parse(value) as Array<{ role: string; parts: Array<{ content?: string }> }>;
  assert.deepEqual(
    messages.map((message) => message.role),
    ['assistant'],
  );
  return messages[0]?.parts.map((part) => part.content ?? '').join('');
}

describe('streamed answers with message content captured', () => {
  test('no opt-in, no tap: the route has no onSend hook at all', async () => {
    const tracing = await createTracing(
      loadGatewayConfig({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' }, { overrides: {} }).telemetry,
    );
    assert.ok(tracing);
    assert.equal(tracing.route('chat').onSend, undefined);
    await tracing.close();
  });

  test('every door: the streamed text is recorded as the same request answered in JSON', async (t) => {
    const { chat: app, receiver, close } = await tracedApp(t, { captureMessageContent: true });
    const post = (url: string, payload: Record<string, unknown>, headers = app.headers()) =>
      app.app.inject({
        method: 'POST',
        url,
        headers: { ...headers, 'content-type': 'application/json' },
        payload,
      });
    const messages = [{ role: 'user', content: PROMPT }];
    const contents = [{ role: 'user', parts: [{ text: PROMPT }] }];
    const gemini = { 'x-goog-api-key': app.token };
    const calls: Array<[string, string, Record<string, unknown>, Record<string, string>?]> = [
      ['chat', '/v1/chat/completions', { model: 'gpt-5.4@cloud_c', messages }],
      ['messages', '/v1/messages', { model: 'claude-sonnet@developer', max_tokens: 200, messages }],
      ['responses', '/v1/responses', { model: 'gpt-5.4@cloud_c', input: PROMPT }],
      ['gemini', '/v1beta/models/gemini-2.5-flash@developer:generateContent', { contents }, gemini],
    ];
    for (const [, url, payload, headers] of calls) {
      const json = await post(url, payload, headers);
      assert.equal(json.statusCode, 200, json.body);
      const streamUrl = url.replace(':generateContent', ':streamGenerateContent');
      const streamed = await post(
        streamUrl,
        url === streamUrl ? { ...payload, stream: true } : payload,
        headers,
      );
      assert.equal(streamed.statusCode, 200, streamed.body);
    }
    const sse = await post(
      '/v1beta/models/gemini-2.5-flash@developer:streamGenerateContent?alt=sse',
      { contents },
      gemini,
    );
    assert.equal(sse.statusCode, 200, sse.body);
    await close();
    const servers = byKind(receiver.spans, SERVER).sort((a, b) => Number(a.startNs - b.startNs));
    assert.equal(servers.length, calls.length * 2 + 1);
    calls.forEach(([door], index) => {
      const [json, streamed] = [servers[index * 2], servers[index * 2 + 1]];
      const expected = outputText(json?.attributes);
      assert.ok(expected && expected.length > 20, `${door}: ${expected}`);
      assert.equal(outputText(streamed?.attributes), expected, door);
    });
    assert.equal(outputText(servers.at(-1)?.attributes), outputText(servers.at(-2)?.attributes), 'alt=sse');
  });

  test('a long streamed answer is cut like a JSON one', async (t) => {
    const { chat: app, receiver, close } = await tracedApp(t, { captureMessageContent: true });
    const response = await chat(app, 'gpt-5.4@cloud_c', {
      stream: true,
      max_tokens: 4_000,
      x_simulator: { reply_tokens: 1_500 },
    });
    assert.equal(response.statusCode, 200);
    await close();
    const text = outputText(byKind(receiver.spans, SERVER)[0]?.attributes) ?? '';
    assert.equal(text.length, 2_001);
    assert.ok(text.endsWith('…') && text.startsWith('Simulated reply'), text.slice(0, 40));
  });
});
