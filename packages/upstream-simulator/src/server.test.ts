import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { type Simulator, startSimulator } from './server.ts';

let sim: Simulator;
let client: OpenAI;
const messages = [{ role: 'user' as const, content: 'What is the capital of France?' }];
const weatherTool = {
  type: 'function' as const,
  function: {
    name: 'get_weather',
    parameters: {
      type: 'object',
      properties: { city: { type: 'string' }, days: { type: 'integer' } },
      required: ['city', 'days'],
    },
  },
};

before(async () => {
  sim = await startSimulator();
  client = new OpenAI({ baseURL: sim.baseUrl, apiKey: 'unused', maxRetries: 0 });
});
after(() => sim.close());

async function post(body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${sim.baseUrl}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
}

describe('simulator completions (driven by the OpenAI SDK)', () => {
  test('replies deterministically, derived from the input, with usage', async () => {
    const first = await client.chat.completions.create({ model: 'sim-small', messages });
    const second = await client.chat.completions.create({ model: 'sim-small', messages });
    const other = await client.chat.completions.create({
      model: 'sim-small',
      messages: [{ role: 'user', content: 'Something else entirely' }],
    });
    const text = first.choices[0]?.message.content ?? '';
    assert.match(text, /^Simulated reply to "What is the":/);
    assert.equal(text, second.choices[0]?.message.content);
    assert.notEqual(text, other.choices[0]?.message.content);
    assert.match(first.id, /^chatcmpl-sim[0-9a-f]{24}$/);
    assert.notEqual(first.id, second.id, 'every completion gets its own id, as the real APIs give');
    assert.equal(first.model, 'sim-small');
    assert.equal(first.usage?.completion_tokens, 16);
    assert.equal(first.usage?.prompt_tokens, Math.ceil('What is the capital of France?'.length / 4) + 3);
    assert.equal(first.choices[0]?.finish_reason, 'stop');
  });

  test('streams the same text token by token, with a usage chunk when asked', async () => {
    const whole = await client.chat.completions.create({ model: 'sim-small', messages });
    const stream = await client.chat.completions.create({
      model: 'sim-small',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    let text = '';
    let contentChunks = 0;
    let usage: OpenAI.CompletionUsage | null | undefined;
    for await (const chunk of stream) {
      const piece = chunk.choices[0]?.delta.content;
      if (piece) contentChunks++;
      text += piece ?? '';
      if (chunk.usage) usage = chunk.usage;
    }
    assert.equal(text, whole.choices[0]?.message.content);
    assert.equal(contentChunks, 16);
    assert.deepEqual(usage, whole.usage);
  });

  test('max_tokens cuts the reply with finish_reason length; effort adds reasoning tokens', async () => {
    const cut = await client.chat.completions.create({
      model: 'sim-small',
      messages,
      max_completion_tokens: 3,
    });
    assert.equal(cut.choices[0]?.finish_reason, 'length');
    assert.equal(cut.usage?.completion_tokens, 3);
    const reasoning = await client.chat.completions.create({
      model: 'sim-small',
      messages,
      reasoning_effort: 'high',
    });
    assert.equal(reasoning.usage?.completion_tokens_details?.reasoning_tokens, 32);
    assert.equal(reasoning.usage?.completion_tokens, 16 + 32);
  });

  test('calls the tool the user names, with arguments from its schema, streamed or not', async () => {
    const ask = [{ role: 'user' as const, content: 'Use get_weather in Paris' }];
    const whole = await client.chat.completions.create({
      model: 'sim-small',
      messages: ask,
      tools: [weatherTool],
    });
    const call = whole.choices[0]?.message.tool_calls?.[0];
    assert.ok(call?.type === 'function');
    assert.equal(call.function.name, 'get_weather');
    assert.deepEqual(JSON.parse(call.function.arguments), { city: 'Paris', days: 1 });
    assert.equal(whole.choices[0]?.finish_reason, 'tool_calls');
    const stream = await client.chat.completions.create({
      model: 'sim-small',
      messages: ask,
      tools: [weatherTool],
      stream: true,
    });
    let args = '';
    for await (const chunk of stream)
      args += chunk.choices[0]?.delta.tool_calls?.[0]?.function?.arguments ?? '';
    assert.equal(args, call.function.arguments);
    const answered = await client.chat.completions.create({
      model: 'sim-small',
      tools: [weatherTool],
      messages: [
        ...ask,
        { role: 'assistant', tool_calls: [call] },
        { role: 'tool', tool_call_id: call.id, content: 'sunny' },
      ],
    });
    assert.equal(answered.choices[0]?.finish_reason, 'stop');
  });

  test('lists models and records what it received, unknown fields included', async () => {
    const list = await client.models.list();
    assert.deepEqual(
      list.data.map((model) => model.id),
      ['sim-small', 'sim-large'],
    );
    await post({ model: 'sim-small', messages, vendor_field: { a: [1] } });
    const body = sim.received.at(-1)?.body as { vendor_field?: unknown } | undefined;
    assert.deepEqual(body?.vendor_field, { a: [1] });
  });
});

describe('simulator failures', () => {
  test('fails with a status and Retry-After from headers, or from the x_simulator body field', async () => {
    const limited = await post(
      { model: 'm', messages },
      { 'x-sim-fail-status': '429', 'x-sim-retry-after': '3' },
    );
    assert.equal(limited.status, 429);
    assert.equal(limited.headers.get('retry-after'), '3');
    assert.equal(((await limited.json()) as { error: { type: string } }).error.type, 'rate_limit_error');
    const broken = await post({ model: 'm', messages, x_simulator: { fail_status: 503 } });
    assert.equal(broken.status, 503);
    await broken.body?.cancel();
  });

  test('names the served model it is told to, in a JSON answer and every chunk of a stream', async () => {
    const served = 'm-2026-01-01';
    const json = await post({ model: 'm', messages }, { 'x-sim-served-model': served });
    assert.equal(((await json.json()) as { model: string }).model, served);
    const stream = await post({ model: 'm', messages, stream: true, x_simulator: { served_model: served } });
    const chunks = (await stream.text())
      .split('\n\n')
      .filter((event) => event.startsWith('data: {'))
      .map((event) => JSON.parse(event.slice(6)) as { model: string });
    assert.ok(chunks.length > 2 && chunks.every((chunk) => chunk.model === served));
    const plain = await post({ model: 'm', messages });
    assert.equal(((await plain.json()) as { model: string }).model, 'm');
  });

  test('fails mid-stream with an error event after N tokens', async () => {
    const response = await post({ model: 'm', messages, stream: true }, { 'x-sim-fail-after-tokens': '2' });
    const text = await response.text();
    const events = text.split('\n\n').filter(Boolean);
    assert.equal(events.length, 4);
    assert.match(events[3] ?? '', /^data: \{"error":/);
    assert.doesNotMatch(text, /\[DONE\]/);
  });

  test('drops the connection after N tokens', async () => {
    const response = await post({ model: 'm', messages, stream: true }, { 'x-sim-drop-after-tokens': '1' });
    await assert.rejects(response.text());
  });

  test('paces tokens and delays the first one', async () => {
    const started = performance.now();
    const response = await post(
      { model: 'm', messages, stream: true },
      { 'x-sim-first-token-delay-ms': '60', 'x-sim-token-delay-ms': '10', 'x-sim-reply-tokens': '4' },
    );
    const reader = response.body?.getReader();
    await reader?.read();
    const firstAt = performance.now() - started;
    for (let done = false; !done;) done = (await reader?.read())?.done ?? true;
    const total = performance.now() - started;
    assert.ok(firstAt >= 55, `first event after ${firstAt} ms`);
    assert.ok(total >= 55 + 4 * 10, `stream took ${total} ms`);
  });

  test('hangs before headers when told to, and counts streams whose client left', async () => {
    await assert.rejects(
      fetch(`${sim.baseUrl}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-sim-hang': 'headers' },
        body: JSON.stringify({ model: 'm', messages }),
        signal: AbortSignal.timeout(100),
      }),
      { name: 'TimeoutError' },
    );
    const before = sim.abortedStreams;
    const response = await post({ model: 'm', messages, stream: true }, { 'x-sim-token-delay-ms': '50' });
    const reader = response.body?.getReader();
    await reader?.read();
    await reader?.cancel();
    await new Promise((resolve) => setTimeout(resolve, 100));
    assert.equal(sim.abortedStreams, before + 1);
  });
});

describe('simulator in-process lifecycle', () => {
  test('configured behaviour applies to every request; close ends hanging requests', async () => {
    const slow = await startSimulator({ behaviour: { hang: 'body' } });
    const response = await fetch(`${slow.baseUrl}/chat/completions`, {
      method: 'POST',
      body: JSON.stringify({ model: 'm', messages }),
    });
    assert.equal(response.status, 200);
    const pending = response.text();
    await slow.close();
    await assert.rejects(pending);
  });
});
