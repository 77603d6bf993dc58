import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ChatTestApp, sseEvents, startChatApp } from './testing.ts';

const messages = [{ role: 'user', content: 'Tell me about Paris' }];
type Chunk = {
  object: string;
  model: string;
  choices: Array<{
    delta: { content?: string; tool_calls?: Array<{ function: { arguments?: string } }> };
    finish_reason: string | null;
  }>;
  usage?: { prompt_tokens: number; completion_tokens: number } | null;
};

function chunksOf(text: string): Chunk[] {
  return sseEvents(text).flatMap((event) => ('data' in event ? [event.data as Chunk] : []));
}

describe('POST /v1/chat/completions (stream)', () => {
  let t: ChatTestApp;
  before(async () => {
    t = await startChatApp();
  });
  after(() => t.close());

  const post = (body: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url: '/v1/chat/completions', headers: t.headers(), payload: body });

  test('streams OpenAI chunks then [DONE]; without include_usage no usage reaches the client, yet it is metered', async () => {
    const whole = (await post({ model: 'gpt-5.4@developer', messages })).json();
    const response = await post({ model: 'gpt-5.4@developer', messages, stream: true });
    assert.equal(response.statusCode, 200);
    assert.equal(response.headers['content-type'], 'text/event-stream; charset=utf-8');
    assert.match(
      String(response.headers['x-gateway-applied']),
      /^model="gpt-5.4-2026-03-05", provider=developer/,
    );
    assert.match(response.body, /^data: \{/);
    assert.ok(response.body.endsWith('data: [DONE]\n\n'));
    const chunks = chunksOf(response.body);
    assert.ok(
      chunks.every(
        (chunk) => chunk.object === 'chat.completion.chunk' && chunk.model === 'gpt-5.4-2026-03-05',
      ),
    );
    assert.ok(chunks.every((chunk) => !('usage' in chunk)));
    assert.equal(
      chunks.map((chunk) => chunk.choices[0]?.delta.content ?? '').join(''),
      whole.choices[0].message.content,
    );
    const sent = t.lastUpstreamBody();
    assert.deepEqual(sent.stream_options, { include_usage: true }, 'usage is always requested upstream');
    const rows = await t.settledUsage(2);
    assert.deepEqual(
      [rows[1]?.status, rows[1]?.prompt_tokens, rows[1]?.completion_tokens],
      ['ok', whole.usage.prompt_tokens, whole.usage.completion_tokens],
    );
  });

  test('with include_usage: usage null on every chunk and one usage chunk before [DONE]', async () => {
    const response = await post({
      model: 'gpt-5.4@developer',
      messages,
      stream: true,
      stream_options: { include_usage: true },
    });
    const chunks = chunksOf(response.body);
    const last = chunks.at(-1);
    assert.deepEqual(last?.choices, []);
    assert.ok(last?.usage && last.usage.completion_tokens > 0);
    assert.ok(chunks.slice(0, -1).every((chunk) => chunk.usage === null));
    assert.deepEqual(sseEvents(response.body).at(-1), { done: true });
  });

  test('streams tool calls', async () => {
    const tools = [
      {
        type: 'function',
        function: { name: 'lookup', parameters: { type: 'object', properties: { q: { type: 'string' } } } },
      },
    ];
    const asked = [{ role: 'user', content: 'Use lookup for Paris' }];
    const response = await post({ model: 'gpt-5.4@developer', messages: asked, tools, stream: true });
    const chunks = chunksOf(response.body);
    const args = chunks
      .map((chunk) => chunk.choices[0]?.delta.tool_calls?.[0]?.function.arguments ?? '')
      .join('');
    assert.deepEqual(JSON.parse(args), { q: 'Paris' });
    assert.equal(chunks.at(-1)?.choices[0]?.finish_reason, 'tool_calls');
  });

  test('a mid-stream upstream error ends the stream with an error event and charges the partial output', async () => {
    const before = (await t.settledUsage(0)).length;
    const response = await post({
      model: 'gpt-5.4@developer',
      messages,
      stream: true,
      x_simulator: { fail_after_tokens: 3 },
    });
    assert.equal(response.statusCode, 200);
    const events = sseEvents(response.body);
    const last = events.at(-1) as { data: { error: { code: string; type: string; message: string } } };
    assert.equal(last.data.error.code, 'upstream_error');
    assert.equal(last.data.error.type, 'api_error');
    assert.doesNotMatch(response.body, /sim-node|internal\.example|\[DONE\]/);
    assert.equal(chunksOf(response.body).filter((chunk) => chunk.choices?.[0]?.delta.content).length, 3);
    const rows = await t.settledUsage(before + 1);
    const row = rows.at(-1);
    assert.equal(row?.status, 'error');
    assert.ok((row?.completion_tokens ?? 0) > 0 && (row?.cost_micros ?? 0) > 0, 'partial output is charged');
  });

  test('a dropped upstream connection mid-stream becomes an error event', async () => {
    const response = await post({
      model: 'gpt-5.4@developer',
      messages,
      stream: true,
      x_simulator: { drop_after_tokens: 2 },
    });
    const last = sseEvents(response.body).at(-1) as { data: { error: { code: string } } };
    assert.equal(last.data.error.code, 'upstream_error');
  });

  test('an upstream failure before the stream starts keeps its HTTP status', async () => {
    const response = await post({
      model: 'gpt-5.4@developer',
      messages,
      stream: true,
      x_simulator: { fail_status: 429, retry_after: '9' },
    });
    assert.equal(response.statusCode, 429);
    assert.equal(response.headers['retry-after'], '9');
    assert.equal(response.json().error.code, 'rate_limited');
    assert.match(String(response.headers['x-gateway-applied']), /provider=developer/);
  });
});

describe('slow upstreams', () => {
  let t: ChatTestApp;
  before(async () => {
    t = await startChatApp({ upstream: { streamKeepAliveMs: 40 }, endpoint: { timeoutMs: 300 } });
  });
  after(() => t.close());

  const post = (body: Record<string, unknown>) =>
    t.app.inject({ method: 'POST', url: '/v1/chat/completions', headers: t.headers(), payload: body });

  test('sends SSE keep-alive comments while waiting for the first token', async () => {
    const response = await post({
      model: 'gpt-5.4@developer',
      messages,
      stream: true,
      x_simulator: { first_token_delay_ms: 150 },
    });
    const events = sseEvents(response.body);
    assert.deepEqual(events[0], { comment: 'keep-alive' });
    const firstData = events.findIndex((event) => 'data' in event);
    assert.ok(firstData >= 2, `${firstData} comments before the first chunk`);
    assert.ok(
      events.slice(firstData).every((event) => !('comment' in event)),
      'no comments once tokens flow',
    );
    assert.deepEqual(events.at(-1), { done: true });
  });

  test('an upstream that never answers: committed with keep-alives, then an in-stream 504 error', async () => {
    const response = await post({
      model: 'gpt-5.4@developer',
      messages,
      stream: true,
      x_simulator: { hang: 'headers' },
    });
    assert.equal(response.statusCode, 200);
    const events = sseEvents(response.body);
    assert.deepEqual(events[0], { comment: 'keep-alive' });
    const last = events.at(-1) as { data: { error: { code: string } } };
    assert.equal(last.data.error.code, 'upstream_timeout');
    const rows = await t.settledUsage(2);
    assert.deepEqual([rows.at(-1)?.status, rows.at(-1)?.cost_micros], ['error', 0], 'released');
  });

  test('a JSON request that times out answers 504', async () => {
    const response = await post({ model: 'gpt-5.4@developer', messages, x_simulator: { hang: 'headers' } });
    assert.equal(response.statusCode, 504);
    assert.equal(response.json().error.code, 'upstream_timeout');
  });
});
