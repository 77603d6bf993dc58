/**
 * The gateway listening on a real port, driven by the OpenAI Node SDK as clients use it, and
 * by a raw client that disconnects mid-stream.
 */
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { type ChatTestApp, startChatApp } from './testing.ts';

/**
 * Posts a streaming request over a raw socket and destroys it, as a killed client process
 * would, once the text received so far satisfies `done`.
 */
function streamUntil(
  url: string,
  headers: Record<string, string>,
  body: string,
  done: (received: string) => boolean,
): Promise<void> {
  const request = httpRequest(`${url}/v1/chat/completions`, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
  });
  return new Promise<void>((resolve, reject) => {
    request.on('response', (response) => {
      let received = '';
      response.on('data', (part: Buffer) => {
        received += part.toString('utf8');
        if (done(received)) {
          request.destroy();
          resolve();
        }
      });
    });
    request.on('error', reject);
    request.end(body);
  });
}

describe('through a listening gateway', () => {
  let t: ChatTestApp;
  let url: string;
  let client: OpenAI;
  before(async () => {
    t = await startChatApp();
    url = await t.app.listen({ port: 0, host: '127.0.0.1' });
    client = new OpenAI({ baseURL: `${url}/v1`, apiKey: t.token, maxRetries: 0 });
  });
  after(() => t.close());

  test('the OpenAI SDK creates a completion and reads X-Gateway-Applied', async () => {
    const { data, response } = await client.chat.completions
      .create({ model: 'gpt-5.4@developer', messages: [{ role: 'user', content: 'Hello there' }] })
      .withResponse();
    assert.equal(data.model, 'gpt-5.4-2026-03-05');
    assert.match(data.choices[0]?.message.content ?? '', /^Simulated reply to "Hello there":/);
    assert.ok(data.usage && data.usage.total_tokens > 0);
    assert.match(response.headers.get('x-gateway-applied') ?? '', /provider=developer/);
  });

  test('the OpenAI SDK streams, with and without usage', async () => {
    for (const includeUsage of [true, false]) {
      const stream = await client.chat.completions.create({
        model: 'claude-haiku@cloud_a',
        messages: [{ role: 'user', content: 'Stream please' }],
        stream: true,
        ...(includeUsage ? { stream_options: { include_usage: true } } : {}),
      });
      let text = '';
      let usage: OpenAI.CompletionUsage | null | undefined;
      for await (const chunk of stream) {
        text += chunk.choices[0]?.delta.content ?? '';
        if (chunk.usage) usage = chunk.usage;
        assert.equal(chunk.model, 'claude-haiku-4-5-20251001');
      }
      assert.match(text, /^Simulated reply to "Stream please":/);
      assert.equal(usage !== undefined, includeUsage);
    }
  });

  test('the OpenAI SDK runs a tool-call round trip', async () => {
    const tools: OpenAI.ChatCompletionTool[] = [
      {
        type: 'function',
        function: {
          name: 'get_weather',
          parameters: { type: 'object', properties: { city: { type: 'string' } }, required: ['city'] },
        },
      },
    ];
    const messages: OpenAI.ChatCompletionMessageParam[] = [
      { role: 'user', content: 'Use get_weather in Lyon' },
    ];
    const first = await client.chat.completions.create({ model: 'gpt-5.4', messages, tools });
    const call = first.choices[0]?.message.tool_calls?.[0];
    assert.ok(call?.type === 'function');
    assert.deepEqual(JSON.parse(call.function.arguments), { city: 'Lyon' });
    messages.push(first.choices[0]?.message as OpenAI.ChatCompletionMessageParam, {
      role: 'tool',
      tool_call_id: call.id,
      content: '{"temperature": 21}',
    });
    const second = await client.chat.completions.create({ model: 'gpt-5.4', messages, tools });
    assert.equal(second.choices[0]?.finish_reason, 'stop');
  });

  test('the OpenAI SDK lists models and raises the error class of each status', async () => {
    const models = await client.models.list();
    assert.ok(models.data.some((model) => model.id === 'gpt-5.4-2026-03-05'));
    await assert.rejects(
      client.chat.completions.create({
        model: 'gpt-5.4@developer',
        messages: [{ role: 'user', content: 'x' }],
        // @ts-expect-error: a gateway pass-through field the SDK does not know
        x_simulator: { fail_status: 429, retry_after: '1' },
      }),
      OpenAI.RateLimitError,
    );
    await assert.rejects(
      client.chat.completions.create({ model: 'gpt-0', messages: [] }),
      OpenAI.BadRequestError,
    );
    await assert.rejects(
      client.chat.completions.create({ model: 'gpt-0', messages: [{ role: 'user', content: 'x' }] }),
      OpenAI.NotFoundError,
    );
    const stranger = new OpenAI({ baseURL: `${url}/v1`, apiKey: 'not-a-token', maxRetries: 0 });
    await assert.rejects(stranger.models.list(), OpenAI.AuthenticationError);
  });

  test('a client that disconnects mid-stream aborts the upstream call and the usage so far is settled', async () => {
    const before = (await t.settledUsage(0)).length;
    const abortedBefore = t.sim.abortedStreams;
    // A raw socket, closed abruptly: what a killed client process looks like to the gateway.
    const body = JSON.stringify({
      model: 'gpt-5.4@developer',
      messages: [{ role: 'user', content: 'a long story' }],
      stream: true,
      x_simulator: { token_delay_ms: 40, reply_tokens: 200 },
    });
    // Cut once three content deltas have arrived.
    await streamUntil(
      url,
      t.headers(),
      body,
      (received) => (received.match(/"content":"[^"]/g) ?? []).length >= 3,
    );
    const rows = await t.settledUsage(before + 1);
    const row = rows.at(-1);
    assert.equal(row?.status, 'aborted');
    assert.ok((row?.completion_tokens ?? 0) > 0, 'output estimated from the streamed text');
    assert.ok((row?.completion_tokens ?? 0) < 200, 'only what was streamed');
    assert.ok((row?.cost_micros ?? 0) > 0);
    for (let i = 0; i < 50 && t.sim.abortedStreams === abortedBefore; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(t.sim.abortedStreams, abortedBefore + 1, 'the upstream stream was cut');
  });
});

describe('a client that leaves while a slow upstream has not answered', () => {
  let t: ChatTestApp;
  let url: string;
  before(async () => {
    t = await startChatApp({ upstream: { streamKeepAliveMs: 30 } });
    url = await t.app.listen({ port: 0, host: '127.0.0.1' });
  });
  after(() => t.close());

  test('ends the keep-alive comments, aborts the upstream call and settles the reservation as aborted', async () => {
    const body = JSON.stringify({
      model: 'gpt-5.4@developer',
      messages: [{ role: 'user', content: 'anyone there?' }],
      stream: true,
      x_simulator: { hang: 'headers' },
    });
    await streamUntil(url, t.headers(), body, (received) => received.includes(': keep-alive'));
    const [row] = await t.settledUsage(1);
    assert.equal(row?.status, 'aborted');
    // A keep-alive timer left running would keep this test file's process from exiting.
  });
});
