import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { collectStream } from '../conformance/collect.ts';
import type { JsonObject } from '../json.ts';
import { errorFixtures, fixtureBytes, fixtureText } from './fixtures.ts';
import { anthropicAdapter as adapter } from './index.ts';
import { usageFromMeters } from '../model/usage.ts';

describe('anthropic responses', () => {
  const foreign = { clientApi: 'openai-chat' } as const;
  const native = { clientApi: 'anthropic-messages' } as const;

  test('finish reasons', () => {
    const reasons: Record<string, string> = {
      end_turn: 'stop',
      stop_sequence: 'stop',
      max_tokens: 'length',
      model_context_window_exceeded: 'length',
      tool_use: 'tool_calls',
      refusal: 'content_filter',
      pause_turn: 'pause',
    };
    const base = JSON.parse(fixtureText('text-completion.fixture.json')) as JsonObject;
    for (const [stop, finish] of Object.entries(reasons)) {
      const parsed = adapter.parseResponse(JSON.stringify({ ...base, stop_reason: stop }), foreign);
      assert.equal(parsed.response.finishReason, finish, stop);
    }
  });

  test('usage: cache tokens added to input, thinking and web searches counted', () => {
    const base = JSON.parse(fixtureText('text-completion.fixture.json')) as JsonObject;
    const usage = {
      input_tokens: 5,
      cache_read_input_tokens: 7,
      cache_creation_input_tokens: 11,
      output_tokens: 13,
      output_tokens_details: { thinking_tokens: 3 },
      server_tool_use: { web_search_requests: 2 },
      service_tier: 'priority',
    };
    const { response } = adapter.parseResponse(JSON.stringify({ ...base, usage }), foreign);
    const expected = { input: 5, cached_input: 7, cache_write_5m: 11, output: 10, reasoning: 3 };
    assert.deepEqual(response.usage, usageFromMeters({ ...expected, web_search_calls: 2 }));
    assert.equal(response.usage?.inputTokens, 23);
    assert.equal(response.servedTier, 'priority');
  });

  test('usage: cache_creation splits the writes into 5-minute and one-hour meters', () => {
    const base = JSON.parse(fixtureText('text-completion.fixture.json')) as JsonObject;
    const usage = {
      input_tokens: 5,
      cache_read_input_tokens: 0,
      cache_creation_input_tokens: 300,
      cache_creation: { ephemeral_5m_input_tokens: 100, ephemeral_1h_input_tokens: 200 },
      output_tokens: 9,
    };
    const { response } = adapter.parseResponse(JSON.stringify({ ...base, usage }), foreign);
    assert.deepEqual(response.usage?.meters, {
      input: 5,
      cache_write_5m: 100,
      cache_write_1h: 200,
      output: 9,
    });
    assert.equal(response.usage?.cacheWriteTokens, 300);
    assert.equal(response.usage?.inputTokens, 305);
  });

  test('stream: the one-hour writes of message_start stay when message_delta repeats no split', () => {
    const message = { id: 'msg_1', type: 'message', role: 'assistant', model: 'claude', content: [] };
    const start = {
      type: 'message_start',
      message: {
        ...message,
        usage: {
          input_tokens: 4,
          cache_creation_input_tokens: 2000,
          cache_creation: { ephemeral_5m_input_tokens: 0, ephemeral_1h_input_tokens: 2000 },
          output_tokens: 1,
        },
      },
    };
    const delta = {
      type: 'message_delta',
      delta: { stop_reason: 'end_turn', stop_sequence: null },
      usage: { input_tokens: null, cache_creation_input_tokens: 2000, output_tokens: 7 },
    };
    const body = [start, delta, { type: 'message_stop' }]
      .map((data) => `event: ${data.type}\ndata: ${JSON.stringify(data)}\n\n`)
      .join('');
    const out = collectStream(adapter.createStreamTranslator(foreign), new TextEncoder().encode(body));
    assert.deepEqual(out.usage?.meters, { input: 4, cache_write_1h: 2000, output: 7 });
  });

  test('thinking with its signature, web search blocks and citations', () => {
    const body = {
      id: 'msg_1',
      type: 'message',
      role: 'assistant',
      content: [
        { type: 'thinking', thinking: 'hmm', signature: 'sig' },
        { type: 'server_tool_use', id: 'srvtoolu_1', name: 'web_search', input: { query: 'paris' } },
        {
          type: 'web_search_tool_result',
          tool_use_id: 'srvtoolu_1',
          content: [
            { type: 'web_search_result', url: 'https://example.org', title: 'P', encrypted_content: 'x' },
          ],
        },
        {
          type: 'text',
          text: 'Paris.',
          citations: [
            {
              type: 'web_search_result_location',
              url: 'https://example.org',
              title: 'P',
              cited_text: 'Paris',
              encrypted_index: 'e',
            },
          ],
        },
      ],
      stop_reason: 'end_turn',
      usage: { input_tokens: 1, output_tokens: 1 },
    };
    const { response } = adapter.parseResponse(JSON.stringify(body), foreign);
    assert.deepEqual(
      response.content.map((part) => part.type),
      ['thinking', 'server_tool_call', 'server_tool_result', 'text'],
    );
    assert.deepEqual(response.content[0], { type: 'thinking', text: 'hmm', signature: 'sig' });
    assert.deepEqual(response.content[3], {
      type: 'text',
      text: 'Paris.',
      citations: [{ type: 'url', url: 'https://example.org', title: 'P', citedText: 'Paris' }],
    });
  });

  test('not a message -> AdapterParseError', () => {
    assert.throws(() => adapter.parseResponse('{"type":"error"}', foreign), { name: 'AdapterParseError' });
    assert.throws(() => adapter.parseResponse('nope', foreign), { name: 'AdapterParseError' });
  });

  test('native output only for an anthropic-messages client', () => {
    const text = fixtureText('text-completion.fixture.json');
    assert.equal(adapter.parseResponse(text, foreign).native, undefined);
    assert.deepEqual(adapter.parseResponse(text, native).native, {
      api: 'anthropic-messages',
      body: JSON.parse(text),
    });
    const bytes = fixtureBytes('text-stream.fixture.sse');
    const out = collectStream(adapter.createStreamTranslator(native), bytes);
    assert.equal(out.native, 14);
    assert.equal(out.text, '', 'text travels inside the native events');
    assert.deepEqual(out.finishReasons, ['stop']);
    assert.ok(out.usage && out.done);
    assert.equal(collectStream(adapter.createStreamTranslator(foreign), bytes).native, 0);
  });

  test('stream: thinking and signature deltas, tool indexes count calls not blocks', () => {
    const text = collectStream(
      adapter.createStreamTranslator(foreign),
      fixtureBytes('text-stream.fixture.sse'),
    );
    assert.equal(text.thinking, 'The user asks for the capital of France. It is Paris.');
    assert.match(text.thinkingSignature ?? '', /^EqQB/);
    const tools = collectStream(
      adapter.createStreamTranslator(foreign),
      fixtureBytes('tool-call-stream.fixture.sse'),
    );
    const starts = tools.events.filter((event) => event.type === 'tool_call_start');
    assert.deepEqual(
      starts.map((event) => event.index),
      [0, 1],
    );
  });

  test('stream cut short without message_stop ends with an error', () => {
    const cut = new TextEncoder().encode(
      fixtureText('text-stream.fixture.sse').split('event: message_stop')[0],
    );
    const out = collectStream(adapter.createStreamTranslator(foreign), cut);
    assert.equal(out.events.at(-1)?.type, 'error');
  });
});

describe('anthropic errors', () => {
  test('529 overloaded -> 503 server', () => {
    assert.deepEqual(adapter.mapError(errorFixtures.overloaded), {
      kind: 'server',
      status: 503,
      message: 'the provider is overloaded; try again later.',
      retry: 'anywhere',
    });
    const waited = adapter.mapError({ ...errorFixtures.overloaded, headers: { 'retry-after': '3' } });
    assert.equal(waited.retryAfter, '3', "the upstream's Retry-After is kept for the client");
  });

  test('403/404 -> 502, 413 -> 400, missing max_tokens -> 400 with its reason, content filter code', () => {
    assert.deepEqual(
      [adapter.mapError(errorFixtures.forbidden).status, adapter.mapError(errorFixtures.notFound).status],
      [502, 502],
    );
    assert.deepEqual(adapter.mapError(errorFixtures.tooLarge).status, 400);
    assert.equal(adapter.mapError(errorFixtures.badRequestMaxTokens).message, 'max_tokens: Field required');
    assert.equal(adapter.mapError(errorFixtures.contentFilter).code, 'content_filter');
    const unauthorized = adapter.mapError(errorFixtures.unauthorized);
    assert.doesNotMatch(unauthorized.message, /sk-ant/);
  });
});
