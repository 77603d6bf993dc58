/**
 * Traces through HTTP: a gateway with an OTLP endpoint exports, to a real local receiver that
 * decodes them (protobuf and JSON), one SERVER span per model request and one CLIENT span per
 * upstream attempt, with the GenAI semantic conventions' attributes (docs/gateway/tracing.md).
 */
import assert from 'node:assert/strict';
import { PassThrough } from 'node:stream';
import { describe, test, type TestContext } from 'node:test';
import {
  type ChatTestApp,
  type ChatTestOptions,
  localUpstream,
  startChatApp,
} from '../front-doors/chat-completions/testing.ts';
import { type OtlpReceiver, type ReceivedSpan, startOtlpReceiver } from './testing.ts';

const SERVER = 2;
const CLIENT = 3;
const ERROR = 2;
const PROMPT = 'Tell me about the secret llama 7731';

async function tracedApp(
  t: TestContext,
  telemetry: Record<string, unknown>,
  options: ChatTestOptions = {},
): Promise<{ chat: ChatTestApp; receiver: OtlpReceiver; close: () => Promise<void> }> {
  const receiver = await startOtlpReceiver(t);
  const chat = await startChatApp({ ...options, telemetry: { endpoint: receiver.url, ...telemetry } });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await chat.close(); // shuts the SDK down: every queued span is exported first
  };
  t.after(close);
  return { chat, receiver, close };
}

function chat(app: ChatTestApp, model: string, extra: Record<string, unknown> = {}, headers = {}) {
  return app.app.inject({
    method: 'POST',
    url: '/v1/chat/completions',
    headers: app.headers({ 'content-type': 'application/json', ...headers }),
    payload: JSON.stringify({
      model,
      messages: [{ role: 'user', content: PROMPT }],
      max_tokens: 64,
      ...extra,
    }),
  });
}

/** `developer`'s OpenAI models on a local upstream that fails every call with `status`. */
async function failingDeveloper(t: TestContext, status: number): Promise<ChatTestOptions> {
  const url = await localUpstream(t, (request, response) => {
    request.resume();
    request.on('end', () =>
      response
        .writeHead(status, { 'content-type': 'application/json' })
        .end(JSON.stringify({ error: { message: `failed with ${status}`, type: 'server_error' } })),
    );
  });
  return {
    behaviour: { firstTokenDelayMs: 0, tokenDelayMs: 0 },
    allocations: { developer: 1_000, cloud_c: 100 },
    editUpstreams: (file) => {
      const developer = file.providers.developer;
      if (developer) developer.vendors.openai = { adapter: 'openai-compatible', baseUrl: url };
    },
  };
}

const byKind = (spans: readonly ReceivedSpan[], kind: number) => spans.filter((span) => span.kind === kind);

describe('a model request as spans (OTLP http/protobuf)', () => {
  test('a server span and its client span, GenAI attributes, no prompt text', async (t) => {
    const logs = new PassThrough();
    const lines: string[] = [];
    logs.on('data', (chunk: Buffer) => lines.push(...chunk.toString('utf8').split('\n').filter(Boolean)));
    const {
      chat: app,
      receiver,
      close,
    } = await tracedApp(
      t,
      {
        headers: 'x-collector-key=k%201,x-other=2',
        serviceName: 'gw-eu',
        resourceAttributes: 'deployment.environment.name=staging,service.name=ignored',
      },
      { logStream: logs },
    );
    const response = await chat(app, 'gpt-5.4@cloud_c');
    assert.equal(response.statusCode, 200, response.body);
    const health = await app.app.inject({ method: 'GET', url: '/healthz' });
    assert.equal(health.statusCode, 200);
    const usage = (await app.settledUsage(1))[0];
    await close();

    assert.ok(receiver.exports.every((e) => e.contentType === 'application/x-protobuf'));
    assert.equal(receiver.spans.length, 2, 'one server span, one client span; /healthz is not traced');
    const [server] = byKind(receiver.spans, SERVER);
    const [client] = byKind(receiver.spans, CLIENT);
    assert.ok(server && client);
    assert.equal(server.parentSpanId, '');
    assert.equal(client.traceId, server.traceId);
    assert.equal(client.parentSpanId, server.spanId);
    assert.equal(server.name, 'chat gpt-5.4@cloud_c');
    assert.equal(client.name, 'chat gpt-5.4-2026-03-05');
    assert.equal(server.resource['service.name'], 'gw-eu', 'OTEL_SERVICE_NAME wins');
    assert.equal(server.resource['deployment.environment.name'], 'staging');
    assert.ok(
      receiver.exports.every((e) => e.headers['x-collector-key'] === 'k 1' && e.headers['x-other'] === '2'),
    );

    assert.ok(usage);
    assert.deepEqual(
      { ...server.attributes },
      {
        'gen_ai.operation.name': 'chat',
        'gen_ai.request.model': 'gpt-5.4@cloud_c',
        'gen_ai.request.max_tokens': 64,
        'gen_ai.response.model': 'gpt-5.4-2026-03-05',
        'gen_ai.usage.input_tokens': usage.prompt_tokens,
        'gen_ai.usage.output_tokens': usage.completion_tokens,
        'gen_ai.response.finish_reasons': ['stop'],
        'http.request.method': 'POST',
        'http.route': '/v1/chat/completions',
        'http.response.status_code': 200,
        'gateway.project': 'apollo',
        'gateway.token_id': app.principal.tokenId,
        'gateway.bucket': 'cloud_c',
        'gateway.effort': server.attributes['gateway.effort'],
        'gateway.tier': 'standard',
        'gateway.compression': server.attributes['gateway.compression'],
        'gateway.cost_usd': Number(usage.cost_micros) / 1e6,
        'gateway.attempts': 1,
      },
    );
    assert.equal(typeof server.attributes['gateway.effort'], 'string');
    assert.equal(client.attributes['gen_ai.provider.name'], 'azure.ai.openai');
    assert.equal(client.attributes['gen_ai.request.model'], 'gpt-5.4-2026-03-05');
    assert.equal(client.attributes['gen_ai.usage.input_tokens'], usage.prompt_tokens);
    assert.equal(client.attributes['server.address'], '127.0.0.1', 'the upstream host (the simulator)');
    assert.equal(client.attributes['gateway.provider'], 'cloud_c');
    assert.equal(client.attributes['gateway.attempt'], 1);
    assert.equal(client.statusCode, 0);
    assert.ok(
      server.startNs <= client.startNs && client.endNs <= server.endNs,
      'the attempt lies within the request',
    );

    const exported = Buffer.concat(receiver.exports.map((e) => e.body)).toString('latin1');
    assert.ok(!exported.includes('secret llama'), 'no prompt text without the opt-in');
    const line = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.url === '/v1/chat/completions');
    assert.equal(line?.traceId, server.traceId, 'the log line names the trace');
    const healthLine = lines
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .find((l) => l.url === '/healthz');
    assert.ok(healthLine && !('traceId' in healthLine), 'untraced routes log no trace id');
  });

  test("a client's traceparent is continued; tracestate is kept", async (t) => {
    const { chat: app, receiver, close } = await tracedApp(t, {});
    const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
    const parentId = '00f067aa0ba902b7';
    const response = await chat(
      app,
      'gpt-5.4@cloud_c',
      { stream: true },
      {
        traceparent: `00-${traceId}-${parentId}-01`,
        tracestate: 'vendor=opaque',
      },
    );
    assert.equal(response.statusCode, 200);
    await close();
    const [server] = byKind(receiver.spans, SERVER);
    assert.equal(server?.traceId, traceId);
    assert.equal(server?.parentSpanId, parentId);
    const [client] = byKind(receiver.spans, CLIENT);
    assert.equal(client?.traceId, traceId);
    assert.equal(typeof client?.attributes['gen_ai.response.time_to_first_chunk'], 'number');
  });

  test('failover: two client spans, the failed one with error.type and status ERROR', async (t) => {
    const { chat: app, receiver, close } = await tracedApp(t, {}, await failingDeveloper(t, 429));
    const response = await chat(app, 'gpt-5.4');
    assert.equal(response.statusCode, 200, response.body);
    await close();
    const [server] = byKind(receiver.spans, SERVER);
    const clients = byKind(receiver.spans, CLIENT).sort((a, b) => Number(a.startNs - b.startNs));
    assert.equal(clients.length, 2);
    assert.ok(clients.every((span) => span.parentSpanId === server?.spanId));
    const [failed, served] = clients;
    assert.equal(failed?.attributes['gateway.provider'], 'developer');
    assert.equal(failed?.attributes['gen_ai.provider.name'], 'openai_compatible');
    assert.equal(failed?.attributes['error.type'], 'rate_limited');
    assert.equal(failed?.attributes['gateway.attempt'], 1);
    assert.equal(failed?.statusCode, ERROR);
    assert.equal(served?.attributes['gateway.provider'], 'cloud_c');
    assert.equal(served?.attributes['gateway.attempt'], 2);
    assert.equal(served?.attributes['error.type'], undefined);
    assert.equal(server?.attributes['gateway.attempts'], 2);
    assert.equal(server?.statusCode, 0, 'the request itself succeeded');
  });
});

describe('OTLP http/json, message content opt-in', () => {
  test('prompt and answer are recorded only when opted in', async (t) => {
    const {
      chat: app,
      receiver,
      close,
    } = await tracedApp(t, {
      protocol: 'http/json',
      captureMessageContent: true,
    });
    const response = await chat(app, 'gpt-5.4@cloud_c', {
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: PROMPT },
      ],
    });
    assert.equal(response.statusCode, 200);
    const answer = (response.json() as { choices: Array<{ message: { content: string } }> }).choices[0]
      ?.message.content;
    await close();
    assert.ok(receiver.exports.every((e) => e.contentType === 'application/json'));
    const [server] = byKind(receiver.spans, SERVER);
    assert.deepEqual(JSON.parse(String(server?.attributes['gen_ai.input.messages'])), [
      { role: 'system', parts: [{ type: 'text', content: 'Be brief.' }] },
      { role: 'user', parts: [{ type: 'text', content: PROMPT }] },
    ]);
    assert.deepEqual(JSON.parse(String(server?.attributes['gen_ai.output.messages'])), [
      { role: 'assistant', parts: [{ type: 'text', content: answer }] },
    ]);
  });

  test('a failed request: error.type and ERROR on the server span', async (t) => {
    const {
      chat: app,
      receiver,
      close,
    } = await tracedApp(t, { protocol: 'http/json' }, await failingDeveloper(t, 500));
    const response = await chat(app, 'gpt-5.4@developer');
    assert.equal(response.statusCode, 502, response.body);
    await close();
    const [server] = byKind(receiver.spans, SERVER);
    const [client] = byKind(receiver.spans, CLIENT);
    assert.equal(server?.attributes['http.response.status_code'], 502);
    assert.equal(server?.attributes['error.type'], 'server');
    assert.equal(server?.statusCode, ERROR);
    assert.equal(client?.attributes['error.type'], 'server');
    assert.equal(client?.attributes['gateway.status'], 502);
    assert.equal(client?.statusCode, ERROR);
  });
});

describe('message content of the other doors (opted in)', () => {
  test('Messages and Responses: system, input and answer in the conventions’ form', async (t) => {
    const { chat: app, receiver, close } = await tracedApp(t, { captureMessageContent: true });
    const messages = await app.app.inject({
      method: 'POST',
      url: '/v1/messages',
      headers: app.headers({ 'content-type': 'application/json' }),
      payload: {
        model: 'claude-sonnet@developer',
        max_tokens: 100,
        system: 'Answer in French.',
        messages: [{ role: 'user', content: [{ type: 'text', text: PROMPT }] }],
      },
    });
    assert.equal(messages.statusCode, 200, messages.body);
    const responses = await app.app.inject({
      method: 'POST',
      url: '/v1/responses',
      headers: app.headers({ 'content-type': 'application/json' }),
      payload: { model: 'gpt-5.4@cloud_c', instructions: 'Be terse.', input: PROMPT },
    });
    assert.equal(responses.statusCode, 200, responses.body);
    await close();
    const servers = byKind(receiver.spans, SERVER);
    const of = (route: string) => servers.find((span) => span.attributes['http.route'] === route)?.attributes;
    const anthropic = of('/v1/messages');
    const openai = of('/v1/responses');
    const userTurn = [{ role: 'user', parts: [{ type: 'text', content: PROMPT }] }];
    assert.deepEqual(JSON.parse(String(anthropic?.['gen_ai.input.messages'])), userTurn);
    assert.deepEqual(JSON.parse(String(anthropic?.['gen_ai.system_instructions'])), [
      { type: 'text', content: 'Answer in French.' },
    ]);
    const answerText = (messages.json() as { content: Array<{ type: string; text?: string }> }).content
      .filter((block) => block.type === 'text')
      .map((block) => ({ type: 'text', content: block.text }));
    assert.deepEqual(JSON.parse(String(anthropic?.['gen_ai.output.messages'])), [
      { role: 'assistant', parts: answerText },
    ]);
    assert.deepEqual(JSON.parse(String(openai?.['gen_ai.input.messages'])), userTurn);
    assert.deepEqual(JSON.parse(String(openai?.['gen_ai.system_instructions'])), [
      { type: 'text', content: 'Be terse.' },
    ]);
    const output = (
      responses.json() as { output: Array<{ type: string; content?: Array<{ text?: string }> }> }
    ).output
      .filter((item) => item.type === 'message')
      .flatMap((item) => item.content ?? [])
      .map((part) => ({ type: 'text', content: part.text }));
    assert.ok(output.length > 0);
    assert.deepEqual(JSON.parse(String(openai?.['gen_ai.output.messages'])), [
      { role: 'assistant', parts: output },
    ]);
  });
});

describe('the Gemini door', () => {
  test('generateContent is generate_content; countTokens is count_tokens', async (t) => {
    const { chat: app, receiver, close } = await tracedApp(t, {});
    const contents = [{ role: 'user', parts: [{ text: PROMPT }] }];
    for (const method of ['generateContent', 'countTokens']) {
      const response = await app.app.inject({
        method: 'POST',
        url: `/v1beta/models/gemini-2.5-flash@developer:${method}`,
        headers: { 'x-goog-api-key': app.token },
        payload: { contents },
      });
      assert.equal(response.statusCode, 200, response.body);
    }
    await close();
    const servers = byKind(receiver.spans, SERVER);
    assert.deepEqual(servers.map((span) => span.name).sort(), [
      'count_tokens gemini-2.5-flash',
      'generate_content gemini-2.5-flash',
    ]);
    const generate = servers.find((span) => span.name.startsWith('generate_content'));
    const [client] = byKind(receiver.spans, CLIENT).filter((span) => span.parentSpanId === generate?.spanId);
    assert.equal(client?.attributes['gen_ai.operation.name'], 'generate_content');
    assert.equal(typeof client?.attributes['gen_ai.provider.name'], 'string');
    assert.ok(
      !JSON.stringify(receiver.spans, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v)).includes(
        'llama',
      ),
    );
  });
});

describe('sampling and switches', () => {
  test('parentbased_traceidratio at 0: new traces dropped, a sampled parent still followed', async (t) => {
    const {
      chat: app,
      receiver,
      close,
    } = await tracedApp(t, {
      sampler: 'parentbased_traceidratio',
      samplerArg: 0,
    });
    assert.equal((await chat(app, 'gpt-5.4@cloud_c')).statusCode, 200);
    const traceId = '0af7651916cd43dd8448eb211c80319c';
    const sampled = await chat(
      app,
      'gpt-5.4@cloud_c',
      {},
      { traceparent: `00-${traceId}-b7ad6b7169203331-01` },
    );
    assert.equal(sampled.statusCode, 200);
    await close();
    assert.equal(receiver.spans.length, 2);
    assert.ok(receiver.spans.every((span) => span.traceId === traceId));
  });

  test('OTEL_SDK_DISABLED: nothing is exported, even with an endpoint', async (t) => {
    const { chat: app, receiver, close } = await tracedApp(t, { sdkDisabled: true });
    assert.equal((await chat(app, 'gpt-5.4@cloud_c')).statusCode, 200);
    await close();
    assert.equal(receiver.exports.length, 0);
  });
});

describe('an embeddings request as spans', () => {
  test("operation 'embeddings': one server span, one client span for its attempt (a split batch included)", async (t) => {
    const { chat: app, receiver, close } = await tracedApp(t, {});
    const response = await app.app.inject({
      method: 'POST',
      url: '/v1/embeddings',
      headers: app.headers(),
      payload: { model: 'titan-embed-text-v2@cloud_a', input: ['one', 'two', 'three'] },
    });
    assert.equal(response.statusCode, 200, response.body);
    const usage = (await app.settledUsage(1))[0];
    await close();
    assert.ok(usage);
    const [server] = byKind(receiver.spans, SERVER);
    const clients = byKind(receiver.spans, CLIENT);
    assert.ok(server);
    assert.equal(clients.length, 1, 'three upstream calls, one attempt');
    assert.equal(server.name, 'embeddings titan-embed-text-v2@cloud_a');
    assert.equal(server.attributes['gen_ai.operation.name'], 'embeddings');
    assert.equal(server.attributes['http.route'], '/v1/embeddings');
    assert.equal(server.attributes['gen_ai.response.model'], 'titan-embed-text-v2');
    assert.equal(server.attributes['gen_ai.usage.input_tokens'], usage.prompt_tokens);
    assert.equal(server.attributes['gen_ai.usage.output_tokens'], 0);
    assert.equal(server.attributes['gateway.cost_usd'], Number(usage.cost_micros) / 1e6);
    assert.equal(clients[0]?.attributes['gateway.provider'], 'cloud_a');
  });
});
