/**
 * POST /v1/messages through a listening gateway on the embedded default, driven by the official
 * `@anthropic-ai/sdk` as Claude Code and SDK users drive it: JSON, streams, a tool-use turn and
 * thinking signatures, for Claude on developer (passthrough), cloud_a (Bedrock Converse,
 * translated), cloud_b (Vertex, passthrough) and a gpt model (OpenAI, translated); usage and
 * cost equal streamed or not; a Gemini 3 tool call whose id carries the thought signature.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type Anthropic from '@anthropic-ai/sdk';
import {
  anthropicClient,
  type ChatTestApp,
  startChatApp,
  type UsageRow,
} from '../chat-completions/testing.ts';

let t: ChatTestApp;
let client: Anthropic;

before(async () => {
  t = await startChatApp();
  const url = await t.app.listen({ port: 0, host: '127.0.0.1' });
  client = anthropicClient(url, t.token);
});
after(() => t.close());

const ls: Anthropic.Tool = {
  name: 'list_files',
  description: 'Lists the files of a directory',
  input_schema: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
};

const CASES = [
  { model: 'claude-sonnet@developer', served: 'claude-sonnet-4-6', provider: 'developer', native: true },
  { model: 'claude-sonnet@cloud_a', served: 'claude-sonnet-4-6', provider: 'cloud_a', native: false },
  { model: 'claude-sonnet@cloud_b', served: 'claude-sonnet-4-6', provider: 'cloud_b', native: true },
  {
    model: 'gpt-5.4-mini@developer',
    served: 'gpt-5.4-mini-2026-03-17',
    provider: 'developer',
    native: false,
  },
] as const;

/** The newest `count` usage rows once settled. */
async function lastRows(count: number): Promise<UsageRow[]> {
  const all = await t.settledUsage(0);
  const rows = await t.settledUsage(all.length);
  return rows.slice(-count);
}

function totalInput(usage: Anthropic.Usage): number {
  return usage.input_tokens + (usage.cache_read_input_tokens ?? 0) + (usage.cache_creation_input_tokens ?? 0);
}

for (const c of CASES) {
  describe(`${c.model} through the Messages front door`, () => {
    test('messages.create and messages.stream: the same answer, usage and cost', async () => {
      const params = {
        model: c.model,
        max_tokens: 256,
        messages: [{ role: 'user' as const, content: `Hello from ${c.provider}` }],
      };
      const { data, response } = await client.messages.create(params).withResponse();
      assert.equal(data.type, 'message');
      assert.equal(data.role, 'assistant');
      assert.equal(data.model, c.served);
      assert.equal(data.stop_reason, 'end_turn');
      const text = data.content[0]?.type === 'text' ? data.content[0].text : '';
      assert.match(text, /^Simulated reply to "Hello from/);
      assert.match(response.headers.get('x-gateway-applied') ?? '', new RegExp(`provider=${c.provider}`));
      assert.ok(response.headers.get('request-id'));

      const stream = client.messages.stream(params);
      const deltas: string[] = [];
      stream.on('text', (piece) => deltas.push(piece));
      const final = await stream.finalMessage();
      assert.equal(deltas.join(''), text, 'the streamed text is the JSON text');
      assert.equal(final.model, c.served);
      assert.equal(final.stop_reason, 'end_turn');
      assert.deepEqual(
        [totalInput(final.usage), final.usage.output_tokens],
        [totalInput(data.usage), data.usage.output_tokens],
      );

      const [json, streamed] = await lastRows(2);
      assert.ok(json && streamed);
      assert.equal(json.status, 'ok');
      assert.equal(streamed.status, 'ok');
      assert.deepEqual(
        [json.prompt_tokens, json.completion_tokens],
        [totalInput(data.usage), data.usage.output_tokens],
        'the ledger has what the client was told',
      );
      assert.equal(streamed.cost_micros, json.cost_micros, 'streamed costs what JSON costs');
      assert.ok(json.cost_micros > 0);
    });

    test('a tool-use turn: tool_use, then the tool_result gets an answer', async () => {
      const question = { role: 'user' as const, content: 'Use list_files in /tmp/project' };
      const first = await client.messages.create({
        model: c.model,
        max_tokens: 512,
        tools: [ls],
        messages: [question],
      });
      assert.equal(first.stop_reason, 'tool_use');
      const call = first.content.find((block) => block.type === 'tool_use');
      assert.ok(call && call.type === 'tool_use');
      assert.equal(call.name, 'list_files');
      assert.equal(typeof (call.input as { path?: unknown }).path, 'string');

      const stream = client.messages.stream({
        model: c.model,
        max_tokens: 512,
        tools: [ls],
        messages: [
          question,
          { role: 'assistant', content: first.content },
          {
            role: 'user',
            content: [{ type: 'tool_result', tool_use_id: call.id, content: 'README.md\nsrc' }],
          },
        ],
      });
      const answer = await stream.finalMessage();
      assert.equal(answer.stop_reason, 'end_turn');
      assert.match(answer.content[0]?.type === 'text' ? answer.content[0].text : '', /^The tool returned:/);
    });

    test('a streamed tool call arrives as tool_use with input_json_delta pieces', async () => {
      const stream = client.messages.stream({
        model: c.model,
        max_tokens: 512,
        tools: [ls],
        messages: [{ role: 'user', content: 'Which files does list_files find in /srv?' }],
      });
      const pieces: string[] = [];
      stream.on('inputJson', (piece) => pieces.push(piece));
      const final = await stream.finalMessage();
      const call = final.content.find((block) => block.type === 'tool_use');
      assert.ok(call && call.type === 'tool_use');
      assert.ok(pieces.length > 0);
      assert.deepEqual(JSON.parse(pieces.join('')), call.input);
      assert.equal(final.stop_reason, 'tool_use');
    });
  });
}

describe('thinking through the passthrough', () => {
  for (const model of ['claude-sonnet@developer', 'claude-sonnet@cloud_b']) {
    test(`${model}: a signed thinking block comes back and goes upstream unmodified`, async () => {
      const question = { role: 'user' as const, content: 'Use list_files in /work' };
      const first = await client.messages.create({
        model,
        max_tokens: 4096,
        thinking: { type: 'adaptive' },
        tools: [ls],
        messages: [question],
      });
      const thinking = first.content.find((block) => block.type === 'thinking');
      assert.ok(thinking && thinking.type === 'thinking');
      assert.ok(thinking.signature.length > 20);
      const call = first.content.find((block) => block.type === 'tool_use');
      assert.ok(call && call.type === 'tool_use');

      const stream = client.messages.stream({
        model,
        max_tokens: 4096,
        thinking: { type: 'adaptive' },
        tools: [ls],
        messages: [
          question,
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'a.txt' }] },
        ],
      });
      const thought: string[] = [];
      let signature = '';
      stream.on('thinking', (delta) => thought.push(delta));
      stream.on('streamEvent', (event) => {
        if (event.type === 'content_block_delta' && event.delta.type === 'signature_delta')
          signature = event.delta.signature;
      });
      const answer = await stream.finalMessage();
      const sent = t.lastUpstreamBody().messages as Array<{ content: unknown }>;
      assert.deepEqual(sent[1]?.content, JSON.parse(JSON.stringify(first.content)));
      assert.ok(thought.join('').length > 0, 'thinking_delta events');
      const streamedThinking = answer.content.find((block) => block.type === 'thinking');
      assert.equal(streamedThinking?.type === 'thinking' && streamedThinking.signature, signature);
      assert.ok(signature.length > 20, 'signature_delta event');
    });
  }
});

describe('a Gemini 3 tool call through the Messages front door', () => {
  for (const stream of [false, true]) {
    test(`${stream ? 'streamed' : 'JSON'}: the tool_use id is valid for Anthropic and the history replays`, async () => {
      const question = { role: 'user' as const, content: 'Use list_files in /work' };
      const params = { model: 'gemini-flash@developer', max_tokens: 1024, tools: [ls], messages: [question] };
      const first = stream
        ? await client.messages.stream(params).finalMessage()
        : await client.messages.create(params);
      const call = first.content.find((block) => block.type === 'tool_use');
      assert.ok(call && call.type === 'tool_use');
      // The simulator's Gemini 3 signs the call like Gemini, in standard base64 (always a `=` here).
      assert.match(call.id, /^[a-zA-Z0-9_-]+$/);

      const answer = await client.messages.create({
        ...params,
        messages: [
          question,
          { role: 'assistant', content: first.content },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: call.id, content: 'a.txt' }] },
        ],
      });
      // The simulator refuses a Gemini 3 history whose call lost its signature.
      assert.equal(answer.stop_reason, 'end_turn');
      const contents = t.lastUpstreamBody().contents as Array<{ parts: Array<Record<string, unknown>> }>;
      const signed = contents[1]?.parts.find((part) => 'functionCall' in part);
      assert.match(String(signed?.thoughtSignature), /^Cs[A-Za-z0-9+/]+=*$/, 'the signature went back');
    });
  }
});
