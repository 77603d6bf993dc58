import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import type { BuildInput } from '../../adapter.ts';
import { isJsonObject, type JsonObject } from '../../json.ts';
import type { OfferProfile } from '../../model/profile.ts';
import type { StreamEvent } from '../../model/response.ts';
import { SseDecoder } from '../../sse.ts';
import { decodeMessage, usageFrom } from './decode.ts';
import { decodeMessagesRequest, MessagesDecodeError } from './decode-request.ts';
import { encodeMessagesRequest } from './encode.ts';
import { encodeMessage, usageToAnthropic } from './encode-response.ts';
import { formatMessagesEvent, MessagesEventEncoder, type MessagesSseEvent } from './encode-stream.ts';
import { createMessagesStreamTranslator } from './stream.ts';
import { usageFromMeters } from '../../model/usage.ts';

const OFFER: OfferProfile = {
  upstreamModel: 'claude-sonnet-4-6',
  efforts: {},
  tiers: ['standard'],
  webSearchTool: 'web_search_20250305',
  defaultMaxOutputTokens: 4096,
  maxOutputTokens: 64000,
};

const here = import.meta.dirname;
const fixture = (name: string) => readFileSync(join(here, 'fixtures', name), 'utf8');
const adapterFixture = (name: string) => readFileSync(join(here, '../../anthropic/fixtures', name), 'utf8');

/** Decodes a Messages body and encodes it again from the internal model alone (no passthrough). */
function roundTrip(body: JsonObject): JsonObject {
  const request = decodeMessagesRequest(body);
  const input: BuildInput = {
    request,
    source: undefined,
    offer: OFFER,
    endpoint: { baseUrl: 'http://127.0.0.1:9' },
    reasoning: { kind: 'omit' },
    tier: 'standard',
  };
  return encodeMessagesRequest(input).body;
}

describe('Messages request decoder', () => {
  test('round trip: decode then encode gives the fixture body back, block for block', () => {
    const body = JSON.parse(fixture('agent-turn.fixture.json')) as JsonObject;
    assert.deepEqual(roundTrip(body), body);
  });

  test('keeps thinking signatures, cache hints and tool names for results in the internal model', () => {
    const body = JSON.parse(fixture('agent-turn.fixture.json')) as JsonObject;
    const request = decodeMessagesRequest(body);
    const assistant = request.turns[1]?.content ?? [];
    assert.deepEqual(assistant[0], {
      type: 'thinking',
      text: 'I should list the directory first.',
      signature: 'EqQBCkYIBxgCKkBsig==',
    });
    const result = request.turns[2]?.content[0];
    assert.equal(result?.type === 'tool_result' && result.name, 'bash', 'the name comes from the call');
    assert.deepEqual(request.system[1]?.cache, { type: 'ephemeral', ttl: '1h' });
    assert.equal(request.parallelToolCalls, false);
    assert.deepEqual(request.stop, ['</done>']);
    assert.equal(request.user, 'user-7');
    assert.equal(request.maxOutputTokens, 32000);
    assert.equal(request.stream, true);
  });

  test('string forms (system, content, tool_result content, text documents) become blocks', () => {
    const body: JsonObject = {
      model: 'm',
      max_tokens: 10,
      system: 'Be brief.',
      messages: [
        {
          role: 'user',
          content: [
            { type: 'document', source: { type: 'text', media_type: 'text/plain', data: 'héllo' } },
            { type: 'text', text: 'Summarise.' },
          ],
        },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'f', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] },
        { role: 'assistant', content: 'Done.' },
      ],
    };
    const again = roundTrip(body);
    assert.deepEqual(again.system, [{ type: 'text', text: 'Be brief.' }]);
    const messages = again.messages as JsonObject[];
    assert.deepEqual((messages[0]?.content as JsonObject[])[0], {
      type: 'document',
      source: { type: 'text', media_type: 'text/plain', data: 'héllo' },
    });
    assert.deepEqual(messages[2]?.content, [
      { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'ok' }] },
    ]);
    assert.deepEqual(messages[3]?.content, [{ type: 'text', text: 'Done.' }]);
  });

  test("system turns between the others (Claude Code 2.1's environment) join the system prompt", () => {
    const request = decodeMessagesRequest({
      system: [{ type: 'text', text: 'You are an agent.', cache_control: { type: 'ephemeral' } }],
      messages: [
        { role: 'user', content: 'List the files' },
        { role: 'system', content: [{ type: 'text', text: '# Environment\ncwd: /work' }] },
        { role: 'assistant', content: 'Listing.' },
        { role: 'system', content: 'Tools changed.' },
        { role: 'user', content: 'Go on' },
      ],
    });
    assert.deepEqual(request.system, [
      { type: 'text', text: 'You are an agent.', cache: { type: 'ephemeral' } },
      { type: 'text', text: '# Environment\ncwd: /work' },
      { type: 'text', text: 'Tools changed.' },
    ]);
    assert.deepEqual(
      request.turns.map((turn) => turn.role),
      ['user', 'assistant', 'user'],
    );
    assert.throws(
      () =>
        decodeMessagesRequest({
          messages: [{ role: 'system', content: [{ type: 'image', source: { type: 'url', url: 'x' } }] }],
        }),
      MessagesDecodeError,
    );
  });

  test('tool_choice types map to the internal choices', () => {
    const choice = (tool_choice: JsonObject) =>
      decodeMessagesRequest({ messages: [], tool_choice }).toolChoice;
    assert.deepEqual(choice({ type: 'any' }), { type: 'required' });
    assert.deepEqual(choice({ type: 'tool', name: 'f' }), { type: 'tool', name: 'f' });
    assert.deepEqual(choice({ type: 'none' }), { type: 'none' });
    assert.deepEqual(choice({ type: 'auto' }), { type: 'auto' });
  });

  test('structured output becomes a json_schema response format', () => {
    const request = decodeMessagesRequest({
      messages: [],
      output_config: { effort: 'high', format: { type: 'json_schema', schema: { type: 'object' } } },
    });
    assert.deepEqual(request.responseFormat, {
      type: 'json_schema',
      name: 'response',
      schema: { type: 'object' },
    });
  });

  test('refuses what another API cannot express instead of dropping it', () => {
    const refused = (body: JsonObject, pattern: RegExp) =>
      assert.throws(
        () => decodeMessagesRequest(body),
        (error: unknown) => {
          assert.ok(error instanceof MessagesDecodeError);
          assert.match(error.message, pattern);
          return true;
        },
      );
    refused({ messages: [], tools: [{ type: 'bash_20250124', name: 'bash' }] }, /bash_20250124/);
    refused(
      { messages: [{ role: 'user', content: [{ type: 'container_upload', file_id: 'f' }] }] },
      /container_upload/,
    );
    refused(
      { messages: [{ role: 'user', content: [{ type: 'image', source: { type: 'file', file_id: 'f' } }] }] },
      /image sources of type 'file'/,
    );
  });
});

describe('Messages request encoder (passthrough)', () => {
  test("the gateway's effort replaces the client's thinking, but its display setting stays", () => {
    const encode = (thinking: JsonObject, reasoning: BuildInput['reasoning']) =>
      encodeMessagesRequest({
        request: decodeMessagesRequest({ messages: [] }),
        source: {
          api: 'anthropic-messages',
          body: { model: 'm', max_tokens: 32000, thinking, messages: [{ role: 'user', content: 'Hi' }] },
          betas: [],
        },
        offer: OFFER,
        endpoint: { baseUrl: 'http://127.0.0.1:9' },
        reasoning,
        tier: 'standard',
      }).body;
    const claudeCode = { type: 'adaptive', display: 'omitted' };
    assert.deepEqual(encode(claudeCode, { kind: 'anthropic-adaptive', effort: 'low' }).thinking, claudeCode);
    assert.deepEqual(encode(claudeCode, { kind: 'anthropic-budget', budgetTokens: 2048 }).thinking, {
      type: 'enabled',
      budget_tokens: 2048,
      display: 'omitted',
    });
    assert.deepEqual(encode({ type: 'adaptive' }, { kind: 'anthropic-adaptive' }).thinking, {
      type: 'adaptive',
    });
  });
});

describe('Messages response encoder', () => {
  test('usage: cache writes of another upstream are split by duration from the meters', () => {
    const usage = usageFromMeters({ input: 3, cache_write_5m: 20, cache_write_1h: 100, output: 4 });
    const encoded = usageToAnthropic(usage);
    assert.equal(encoded.input_tokens, 3);
    assert.equal(encoded.cache_creation_input_tokens, 120);
    assert.deepEqual(encoded.cache_creation, {
      ephemeral_5m_input_tokens: 20,
      ephemeral_1h_input_tokens: 100,
    });
    assert.deepEqual(usageFrom(encoded).meters, usage.meters);
  });

  test('round trip: a Messages response decoded then encoded is the same body', () => {
    const body = adapterFixture('tool-call-completion.fixture.json');
    const original = JSON.parse(body) as JsonObject;
    const { response } = decodeMessage(body);
    const encoded = encodeMessage(response, { id: String(original.id), model: String(original.model) });
    assert.deepEqual(encoded, original);
  });

  test('thinking with its signature, text and usage survive (cache figures beside the input)', () => {
    const body = adapterFixture('text-completion.fixture.json');
    const original = JSON.parse(body) as JsonObject;
    const { response } = decodeMessage(body);
    const encoded = encodeMessage(response, { id: 'msg_x', model: 'claude-sonnet-4-6' });
    assert.deepEqual(encoded.content, original.content);
    assert.equal(encoded.stop_reason, 'end_turn');
    assert.deepEqual(usageFrom(encoded.usage as JsonObject), usageFrom(original.usage as JsonObject));
  });

  test('finish reasons map back to stop reasons', () => {
    const reasons = (['stop', 'length', 'tool_calls', 'content_filter', 'pause'] as const).map(
      (finishReason) =>
        encodeMessage({ id: '', content: [], finishReason, usage: undefined }, { id: 'm', model: 'x' })
          .stop_reason,
    );
    assert.deepEqual(reasons, ['end_turn', 'max_tokens', 'tool_use', 'refusal', 'pause_turn']);
  });
});

function parseSse(text: string): MessagesSseEvent[] {
  const decoder = new SseDecoder();
  return [...decoder.push(new TextEncoder().encode(text)), ...decoder.end()].map((event) => ({
    event: event.event ?? '',
    data: JSON.parse(event.data) as JsonObject,
  }));
}

/** The fixture stream through the decoder (as for a client of another API) and the encoder. */
function reencode(sse: string): MessagesSseEvent[] {
  const translator = createMessagesStreamTranslator({ clientApi: 'openai-chat' });
  const events: StreamEvent[] = [...translator.push(new TextEncoder().encode(sse)), ...translator.end()];
  const first = parseSse(sse)[0]?.data.message as JsonObject;
  const encoder = new MessagesEventEncoder({ id: String(first.id), model: String(first.model) });
  return parseSse(
    events
      .flatMap((event) => encoder.encode(event))
      .map(formatMessagesEvent)
      .join(''),
  );
}

/** What a client reads: pings and empty argument pieces carry nothing; usage is compared as figures. */
function meaningful(events: MessagesSseEvent[]): JsonObject[] {
  return events
    .filter((e) => e.event !== 'ping')
    .filter((e) => !(isJsonObject(e.data.delta) && e.data.delta.partial_json === ''))
    .map((e) => {
      if (e.event === 'message_start') {
        const { usage, ...message } = e.data.message as JsonObject;
        return { ...e.data, message: { ...message, usage: usageFrom(usage as JsonObject) } };
      }
      if (e.event === 'message_delta') return { ...e.data, usage: 'cumulative' };
      return e.data;
    });
}

describe('Messages stream encoder', () => {
  for (const name of ['text-stream.fixture.sse', 'tool-call-stream.fixture.sse']) {
    test(`${name}: decoded then encoded gives the same event sequence and content`, () => {
      const sse = adapterFixture(name);
      assert.deepEqual(meaningful(reencode(sse)), meaningful(parseSse(sse)));
    });
  }

  test('final usage is cumulative in message_delta, input included', () => {
    const sse = adapterFixture('text-stream.fixture.sse');
    const delta = reencode(sse).find((e) => e.event === 'message_delta');
    assert.deepEqual(
      usageFrom(delta?.data.usage as JsonObject),
      usageFromMeters({ input: 20, cached_input: 100, cache_write_5m: 30, output: 10, reasoning: 50 }),
    );
  });

  test('events of another API (usage last, no start) still make a complete Messages stream', () => {
    const encoder = new MessagesEventEncoder({ id: 'msg_1', model: 'gpt-5.4' });
    const usage = usageFromMeters({ input: 12, output: 7 });
    const events: StreamEvent[] = [
      { type: 'text', text: 'Let me look.' },
      { type: 'tool_call_start', index: 0, id: 'call_1', name: 'ls', signature: 'sig' },
      { type: 'tool_call_delta', index: 0, arguments: '{"path":' },
      { type: 'tool_call_delta', index: 0, arguments: '"."}' },
      { type: 'finish', reason: 'tool_calls' },
      { type: 'usage', usage },
      { type: 'done' },
    ];
    const out = events.flatMap((event) => encoder.encode(event));
    assert.deepEqual(
      out.map((e) => e.event),
      [
        'message_start',
        'content_block_start',
        'content_block_delta',
        'content_block_stop',
        'content_block_start',
        'content_block_delta',
        'content_block_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ],
    );
    assert.deepEqual(out[4]?.data.content_block, {
      type: 'tool_use',
      id: 'call_1__sig_tc2ln',
      name: 'ls',
      input: {},
    });
    assert.deepEqual(out[8]?.data.delta, { stop_reason: 'tool_use', stop_sequence: null });
    assert.equal((out[8]?.data.usage as JsonObject).input_tokens, 12);
    assert.equal(
      formatMessagesEvent(out[9] as MessagesSseEvent),
      'event: message_stop\ndata: {"type":"message_stop"}\n\n',
    );
  });
});
