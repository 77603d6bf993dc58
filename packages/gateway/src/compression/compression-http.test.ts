/**
 * Prompt compression as clients meet it: the OpenAI SDK against a listening gateway in front of
 * the simulator (and one Anthropic SDK request with cache_control through /v1/messages), for
 * each level by modifier and by header, both response headers, what the upstream really got
 * (protected parts byte-identical, cache prefix untouched, tool pairs whole) and the charge.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import OpenAI from 'openai';
import { anthropicClient, type ChatTestApp, startChatApp } from '../front-doors/chat-completions/testing.ts';
import { compressionCounts } from './testing.ts';

let t: ChatTestApp;
let openai: OpenAI;
let anthropic: Anthropic;

before(async () => {
  // The `compressed` case below sends 5.5 MB of tool results, past the default work budget, and
  // may take over a second on a loaded machine: these tests are about the transforms, so the
  // bound (work-budget-http.test.ts) is set out of their way.
  t = await startChatApp({ compression: { workBudget: 20_000_000, deadlineMs: 60_000 } });
  const url = await t.app.listen({ port: 0, host: '127.0.0.1' });
  openai = new OpenAI({ baseURL: `${url}/v1`, apiKey: t.token, maxRetries: 0 });
  anthropic = anthropicClient(url, t.token);
});
after(() => t.close());

type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam;

const FILE = Array.from({ length: 60 }, (_, line) => `export const value${line} = ${line};   `).join('\n');
const CODE = '```python\ndef main():   \n\n\n\n    return 1  \n```';
// An integer past 2^53: minifying must not round it (JSON.parse + stringify would).
const JSON_RESULT =
  '{\n  "rows": [\n    { "id": 12345678901234567890, "name": "pump" }\n  ],\n  "total": 1\n}';

/** An agent transcript: the same file read twice, a JSON tool result, code and untidy prose. */
function transcript(): Message[] {
  return [
    { role: 'system', content: 'You are a coding agent.   \n\n\n\nBe brief.' },
    { role: 'user', content: `Fix the bug.   \n\n\n\n${CODE}\n\n\n` },
    { role: 'assistant', content: null, tool_calls: [toolCall('c1', 'read_file')] },
    { role: 'tool', tool_call_id: 'c1', content: FILE },
    { role: 'assistant', content: null, tool_calls: [toolCall('c2', 'query')] },
    { role: 'tool', tool_call_id: 'c2', content: JSON_RESULT },
    { role: 'assistant', content: null, tool_calls: [toolCall('c3', 'read_file')] },
    { role: 'tool', tool_call_id: 'c3', content: FILE },
    { role: 'user', content: 'Now answer.   \n\n\n' },
  ];
}

function toolCall(id: string, name: string): OpenAI.Chat.Completions.ChatCompletionMessageToolCall {
  return { id, type: 'function', function: { name, arguments: '{"path": "a.ts"}' } };
}

const tools: OpenAI.Chat.Completions.ChatCompletionTool[] = [
  { type: 'function', function: { name: 'read_file', parameters: { type: 'object', properties: {} } } },
  { type: 'function', function: { name: 'query', parameters: { type: 'object', properties: {} } } },
];

const counts = (response: Response) => compressionCounts(response.headers);

async function chat(model: string, messages: Message[], headers: Record<string, string> = {}, extra = {}) {
  const { data, response } = await openai.chat.completions
    .create({ model, messages, tools, max_completion_tokens: 64, ...extra }, { headers })
    .withResponse();
  return {
    data,
    response,
    applied: response.headers.get('x-gateway-applied') ?? '',
    sent: t.lastUpstreamBody(),
  };
}

type Sent = { role: string; content: unknown; tool_call_id?: string; tool_calls?: unknown }[];

/** The settled usage row of the only request sent to `provider` (rows are written after the answer). */
async function settledRow(provider: string) {
  for (let tries = 0; tries < 100; tries += 1) {
    const row = (await t.settledUsage(0)).find(
      (entry) => entry.provider === provider && entry.status === 'ok',
    );
    if (row) return row;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return undefined;
}

/** Tool call ids in order, and the ids their results answer. */
function pairs(messages: Sent): { calls: string[]; results: string[] } {
  return {
    calls: messages.flatMap((m) => (m.tool_calls as { id: string }[] | undefined)?.map((c) => c.id) ?? []),
    results: messages.flatMap((m) => (m.tool_call_id ? [m.tool_call_id] : [])),
  };
}

describe('prompt compression through the OpenAI SDK', () => {
  test('off (the default, :nocompress, or the header) forwards the body byte for byte, without a count header', async () => {
    for (const [model, headers] of [
      ['gpt-5.4@developer', {}],
      ['gpt-5.4:nocompress@developer', { 'X-Gateway-Compression': 'compact' }],
      ['gpt-5.4@developer', { 'X-Gateway-Compression': 'off' }],
    ] as const) {
      const { response, applied, sent } = await chat(model, transcript(), headers);
      assert.match(applied, /compression=off$/);
      assert.equal(counts(response), undefined);
      assert.deepEqual(sent.messages, JSON.parse(JSON.stringify(transcript())));
    }
  });

  test('compact (modifier): JSON minified, the repeated file read referenced, code and tool pairs intact', async () => {
    const { response, applied, sent } = await chat(
      'gpt-5.4:compact@developer',
      transcript(),
      {},
      { seed: 7 },
    );
    assert.match(applied, /compression=compact$/);
    const measured = counts(response);
    assert.ok(measured && measured.after < measured.before, JSON.stringify(measured));
    const messages = sent.messages as Sent;
    assert.equal(sent.seed, 7, 'the rest of the body is forwarded as sent');
    assert.deepEqual(
      messages.map((message) => message.role),
      ['system', 'user', 'assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool', 'user'],
    );
    assert.equal(messages[0]?.content, 'You are a coding agent.\n\nBe brief.');
    assert.ok(
      JSON.stringify(messages[1]?.content).includes(JSON.stringify(CODE).slice(1, -1)),
      'code block verbatim',
    );
    assert.equal(messages[3]?.content, FILE.replaceAll('   \n', '\n').trimEnd());
    assert.equal(messages[5]?.content, '{"rows":[{"id":12345678901234567890,"name":"pump"}],"total":1}');
    assert.equal(messages[7]?.content, '[Identical to the result of tool call c1: left out by the gateway.]');
    assert.deepEqual(pairs(messages), { calls: ['c1', 'c2', 'c3'], results: ['c1', 'c2', 'c3'] });
  });

  test('compact (header) translated for Claude: counted with the Claude tokenizer, charged from upstream usage', async () => {
    const { data, response, applied, sent } = await chat('claude-sonnet@cloud_a', transcript(), {
      'X-Gateway-Compression': 'compact',
    });
    assert.match(applied, /provider=cloud_a, .*compression=compact$/);
    const measured = counts(response);
    assert.ok(measured && measured.after < measured.before);
    assert.ok(JSON.stringify(sent).includes('left out by the gateway'));
    // The charge follows what the upstream counted: the compressed prompt.
    const row = await settledRow('cloud_a');
    assert.equal(row?.prompt_tokens, data.usage?.prompt_tokens);
  });

  test('a request nothing can shrink still reports the level and equal counts', async () => {
    const { response, applied } = await chat('gpt-5.4@developer', [{ role: 'user', content: 'Hi.' }], {
      'X-Gateway-Compression': 'compressed',
    });
    assert.match(applied, /compression=compressed$/);
    const measured = counts(response);
    assert.ok(measured && measured.before === measured.after && measured.before > 0);
    assert.match(
      response.headers.get('x-gateway-compression') ?? '',
      /^input-tokens-before=\d+, input-tokens-after=\d+$/,
    );
  });

  test('compressed: a prompt over the budget is cut to fit, first and last turns and tool pairs kept', async () => {
    const big = Array.from(
      { length: 400 },
      (_, line) => `row ${line}: ${'measurement value '.repeat(12)}`,
    ).join('\n');
    const messages: Message[] = [
      { role: 'system', content: 'Agent.' },
      { role: 'user', content: 'Start here.' },
    ];
    for (let index = 0; index < 60; index += 1) {
      messages.push({ role: 'assistant', content: null, tool_calls: [toolCall(`k${index}`, 'read_file')] });
      messages.push({ role: 'tool', tool_call_id: `k${index}`, content: `${index}\n${big}` });
    }
    messages.push(
      { role: 'assistant', content: 'Read everything.' },
      { role: 'user', content: 'Summarise.' },
    );
    // Budget: 272,000 (context) - 128,000 (the output asked for) = 144,000 tokens.
    const { response, applied, sent } = await chat(
      'gpt-5.4:compressed@developer',
      messages,
      {},
      {
        max_completion_tokens: 128_000,
      },
    );
    assert.match(applied, /compression=compressed$/);
    const measured = counts(response);
    assert.ok(measured && measured.before > 144_000 && measured.after <= 144_000, JSON.stringify(measured));
    const out = sent.messages as Sent;
    // Re-encoded from the internal model: user text as content parts, the words unchanged.
    const words = (message: Sent[number] | undefined) => [message?.role, JSON.stringify(message?.content)];
    assert.deepEqual(out.slice(0, 2).map(words), [
      ['system', '"Agent."'],
      ['user', '[{"type":"text","text":"Start here."}]'],
    ]);
    assert.deepEqual(out.slice(-2).map(words), [
      ['assistant', '"Read everything."'],
      ['user', '[{"type":"text","text":"Summarise."}]'],
    ]);
    assert.match(JSON.stringify(out), /tokens left out by the gateway/);
    const { calls, results } = pairs(out);
    assert.deepEqual(calls, results);
  });

  test('streams carry both headers too', async () => {
    const { response } = await openai.chat.completions
      .create({ model: 'gpt-5.4:compact@developer', messages: transcript(), tools, stream: true })
      .withResponse();
    assert.match(response.headers.get('x-gateway-applied') ?? '', /compression=compact$/);
    assert.ok(counts(response));
  });

  test('a header value the model cannot use is ignored and reported', async () => {
    const { applied, response } = await chat('gpt-5.4@developer', transcript(), {
      'X-Gateway-Compression': 'tiny',
    });
    assert.match(applied, /compression=off$/);
    assert.equal(response.headers.get('x-gateway-ignored'), 'compression=tiny');
  });
});

describe('prompt compression through /v1/messages', () => {
  test('the cached prefix before cache_control is forwarded as sent; the rest is compacted; thinking untouched', async () => {
    const messy = 'Context line.   \n\n\n\nMore context.   ';
    const { response } = await anthropic.messages
      .create(
        {
          model: 'claude-haiku-4-5:compact@developer',
          max_tokens: 64,
          system: [{ type: 'text', text: messy, cache_control: { type: 'ephemeral' } }],
          messages: [
            { role: 'user', content: [{ type: 'text', text: messy, cache_control: { type: 'ephemeral' } }] },
            {
              role: 'assistant',
              content: [
                { type: 'thinking', thinking: messy, signature: 'sig-1' },
                { type: 'text', text: messy },
              ],
            },
            { role: 'user', content: messy },
          ],
        },
        { headers: { 'anthropic-beta': 'context-1m-2025-08-07' } },
      )
      .withResponse();
    assert.match(response.headers.get('x-gateway-applied') ?? '', /compression=compact$/);
    assert.ok(counts(response as unknown as Response));
    const sent = t.lastUpstreamBody() as { system: unknown; messages: { content: unknown }[] };
    assert.deepEqual(sent.system, [{ type: 'text', text: messy, cache_control: { type: 'ephemeral' } }]);
    assert.deepEqual(sent.messages[0]?.content, [
      { type: 'text', text: messy, cache_control: { type: 'ephemeral' } },
    ]);
    assert.deepEqual(sent.messages[1]?.content, [
      { type: 'thinking', thinking: messy, signature: 'sig-1' },
      { type: 'text', text: 'Context line.\n\nMore context.' },
    ]);
    assert.deepEqual(sent.messages[2]?.content, [{ type: 'text', text: 'Context line.\n\nMore context.' }]);
  });
});
