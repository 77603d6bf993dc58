/**
 * Fields OpenAI's response schema requires, through HTTP with local upstreams that report what the
 * simulator does not: `usage.input_tokens_details.cache_write_tokens` (Anthropic's cache writes
 * when translated, the upstream's figure or 0 when forwarded), and `tools` / `tool_choice` echoed
 * from the request on translated answers, JSON and streamed.
 */
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { type ChatTestApp, startChatApp } from '../chat-completions/testing.ts';

type Json = Record<string, unknown>;

const ANTHROPIC_USAGE = {
  input_tokens: 10,
  cache_creation_input_tokens: 30,
  cache_read_input_tokens: 20,
  output_tokens: 5,
};

const anthropicJson = {
  id: 'msg_1',
  type: 'message',
  role: 'assistant',
  model: 'claude-sonnet-4-6',
  content: [{ type: 'text', text: 'ok' }],
  stop_reason: 'end_turn',
  stop_sequence: null,
  usage: ANTHROPIC_USAGE,
};

function sse(events: ReadonlyArray<readonly [string, Json]>): string {
  return events.map(([name, data]) => `event: ${name}\ndata: ${JSON.stringify(data)}\n\n`).join('');
}

const anthropicStream = sse([
  ['message_start', { type: 'message_start', message: { ...anthropicJson, content: [], stop_reason: null } }],
  [
    'content_block_start',
    { type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } },
  ],
  [
    'content_block_delta',
    { type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'ok' } },
  ],
  ['content_block_stop', { type: 'content_block_stop', index: 0 }],
  [
    'message_delta',
    { type: 'message_delta', delta: { stop_reason: 'end_turn' }, usage: { output_tokens: 5 } },
  ],
  ['message_stop', { type: 'message_stop' }],
]);

/** An OpenAI response object; `writes`: the upstream reports cache writes (newer servers do). */
function openAIResponse(status: string, writes: boolean): Json {
  const details = writes ? { cached_tokens: 4, cache_write_tokens: 6 } : { cached_tokens: 4 };
  return {
    id: 'resp_up1',
    object: 'response',
    created_at: 1795400000,
    status,
    model: 'gpt-5.4-mini-2026-03-17',
    output:
      status === 'completed'
        ? [
            {
              id: 'msg_up1',
              type: 'message',
              status: 'completed',
              role: 'assistant',
              content: [{ type: 'output_text', text: 'ok', annotations: [] }],
            },
          ]
        : [],
    usage:
      status === 'completed'
        ? { input_tokens: 12, input_tokens_details: details, output_tokens: 1, total_tokens: 13 }
        : null,
  };
}

function openAIStream(writes: boolean): string {
  return sse([
    [
      'response.created',
      { type: 'response.created', sequence_number: 0, response: openAIResponse('in_progress', writes) },
    ],
    [
      'response.output_text.delta',
      {
        type: 'response.output_text.delta',
        sequence_number: 1,
        output_index: 0,
        item_id: 'msg_up1',
        content_index: 0,
        delta: 'ok',
      },
    ],
    [
      'response.completed',
      { type: 'response.completed', sequence_number: 2, response: openAIResponse('completed', writes) },
    ],
  ]);
}

/** A few events, then OpenAI's `error` event: a failure mid-stream. */
const failingStream = sse([
  [
    'response.created',
    { type: 'response.created', sequence_number: 0, response: openAIResponse('in_progress', false) },
  ],
  [
    'response.output_text.delta',
    {
      type: 'response.output_text.delta',
      sequence_number: 1,
      output_index: 0,
      item_id: 'msg_up1',
      delta: 'o',
    },
  ],
  [
    'error',
    {
      type: 'error',
      sequence_number: 2,
      code: 'server_error',
      message: 'boom on node-7.internal',
      param: null,
    },
  ],
]);

function answer(request: IncomingMessage, response: ServerResponse, body: Json): void {
  const streaming = body.stream === true;
  const send = (text: string): void => {
    response.writeHead(200, { 'content-type': streaming ? 'text/event-stream' : 'application/json' });
    response.end(text);
  };
  if (request.url?.endsWith('/messages'))
    return send(streaming ? anthropicStream : JSON.stringify(anthropicJson));
  if (streaming && body.input === 'fail') return send(failingStream);
  const writes = JSON.stringify(body.input).includes('writes');
  send(streaming ? openAIStream(writes) : JSON.stringify(openAIResponse('completed', writes)));
}

// One upstream for the file (localUpstream closes per test; these tests share the gateway).
const upstream = createServer((request, response) => {
  let text = '';
  request.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
  request.on('end', () => answer(request, response, JSON.parse(text) as Json));
});
let t: ChatTestApp;

before(async () => {
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/v1`;
  t = await startChatApp({
    anthropicEndpoint: {
      baseUrl: url.replace(/\/v1$/, ''),
      auth: { type: 'api-key', header: 'x-api-key', key: 'env:SIM_ANTHROPIC_API_KEY' },
    },
    editUpstreams: (file) => {
      const openai = file.providers.developer?.vendors.openai as Json;
      file.providers.developer!.vendors.openai = { ...openai, baseUrl: url };
    },
  });
});
after(async () => {
  await t.close();
  upstream.closeAllConnections();
  upstream.close();
});

async function post(payload: Json): Promise<{ status: number; body: string }> {
  const response = await t.app.inject({
    method: 'POST',
    url: '/v1/responses',
    headers: t.headers(),
    payload,
  });
  return { status: response.statusCode, body: response.body };
}

/** The `response` objects of a stream's lifecycle events, by event name. */
function streamed(body: string): Map<string, Json> {
  const found = new Map<string, Json>();
  for (const block of body.split('\n\n')) {
    const data = block.split('\n').find((line) => line.startsWith('data: '));
    if (data === undefined) continue;
    const event = JSON.parse(data.slice(6)) as Json;
    if (typeof event.response === 'object') found.set(String(event.type), event.response as Json);
  }
  return found;
}

const details = (response: Json | undefined) =>
  (response?.usage as { input_tokens_details?: Json } | undefined)?.input_tokens_details;

describe('usage.input_tokens_details.cache_write_tokens', () => {
  test('translated (Anthropic): the cache writes, JSON and in response.completed', async () => {
    const json = await post({ model: 'claude-sonnet@developer', input: 'hi' });
    assert.equal(json.status, 200, json.body);
    const object = JSON.parse(json.body) as Json;
    assert.deepEqual(details(object), { cached_tokens: 20, cache_write_tokens: 30 });
    assert.equal((object.usage as Json).input_tokens, 60, 'input counts reads and writes');

    const stream = await post({ model: 'claude-sonnet@developer', input: 'hi', stream: true });
    assert.equal(stream.status, 200, stream.body);
    assert.deepEqual(details(streamed(stream.body).get('response.completed')), {
      cached_tokens: 20,
      cache_write_tokens: 30,
    });
  });

  test('forwarded (OpenAI): the upstream’s figure when it reports one, else 0', async () => {
    for (const [input, expected] of [
      ['with writes', { cached_tokens: 4, cache_write_tokens: 6 }],
      ['hi', { cached_tokens: 4, cache_write_tokens: 0 }],
    ] as const) {
      const json = await post({ model: 'gpt-5.4-mini@developer', input });
      assert.equal(json.status, 200, json.body);
      assert.deepEqual(details(JSON.parse(json.body) as Json), expected, input);
      const stream = await post({ model: 'gpt-5.4-mini@developer', input, stream: true });
      assert.equal(stream.status, 200, stream.body);
      assert.deepEqual(details(streamed(stream.body).get('response.completed')), expected, input);
    }
  });
});

describe('tools and tool_choice are echoed on translated answers', () => {
  const lookup = {
    type: 'function',
    name: 'lookup',
    description: 'Looks a word up',
    parameters: { type: 'object', properties: { word: { type: 'string' } }, required: ['word'] },
    strict: false,
  };
  const choice = { type: 'function', name: 'lookup' };

  test('the request’s tools and tool_choice, JSON and in the stream’s created and completed', async () => {
    const request = { model: 'claude-sonnet@developer', input: 'define gateway', tools: [lookup] };
    const json = await post({ ...request, tool_choice: choice });
    assert.equal(json.status, 200, json.body);
    const object = JSON.parse(json.body) as Json;
    assert.deepEqual([object.tools, object.tool_choice], [[lookup], choice]);

    const stream = await post({ ...request, tool_choice: 'required', stream: true });
    assert.equal(stream.status, 200, stream.body);
    const events = streamed(stream.body);
    for (const name of ['response.created', 'response.completed']) {
      const response = events.get(name);
      assert.deepEqual([response?.tools, response?.tool_choice], [[lookup], 'required'], name);
    }
  });

  test('none sent: no tools and "auto"', async () => {
    const json = await post({ model: 'claude-sonnet@developer', input: 'hi' });
    const object = JSON.parse(json.body) as Json;
    assert.deepEqual([object.tools, object.tool_choice], [[], 'auto']);
    const stream = await post({ model: 'claude-sonnet@developer', input: 'hi', stream: true });
    const completed = streamed(stream.body).get('response.completed');
    assert.deepEqual([completed?.tools, completed?.tool_choice], [[], 'auto']);
  });
});

test('forwarded (OpenAI) failing mid-stream: error and response.failed continue its numbering and response', async () => {
  const { status, body } = await post({ model: 'gpt-5.4-mini@developer', input: 'fail', stream: true });
  assert.equal(status, 200, body);
  const events = body
    .split('\n\n')
    .filter((block) => block.startsWith('event: '))
    .map((block) => JSON.parse(block.split('\n')[1]?.slice(6) ?? '{}') as Json);
  assert.deepEqual(
    events.map((event) => [event.type, event.sequence_number]),
    [
      ['response.created', 0],
      ['response.output_text.delta', 1],
      ['error', 2],
      ['response.failed', 3],
    ],
  );
  const failed = events[3]?.response as { id: string; status: string; model: string; error: Json };
  assert.deepEqual(
    [failed.id, failed.status, failed.model],
    ['resp_up1', 'failed', 'gpt-5.4-mini-2026-03-17'],
  );
  assert.equal(failed.error.code, 'server_error');
  assert.doesNotMatch(body, /internal/);
});
