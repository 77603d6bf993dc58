import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { EventStreamCodec } from '@smithy/eventstream-codec';
import { fromUtf8, toUtf8 } from '@smithy/util-utf8';
import { AdapterParseError } from '../adapter.ts';
import { collectStream } from '../conformance/collect.ts';
import { assertNoLeak } from '../conformance/scenarios.ts';
import { errorFixtures, fixtureBytes } from './fixtures.ts';
import { fixtureFiles } from './fixtures/generate.ts';
import { bedrockConverseAdapter as adapter } from './index.ts';
import { usageFromMeters } from '../model/usage.ts';

const context = { clientApi: 'openai-chat' } as const;
const codec = new EventStreamCodec(toUtf8, fromUtf8);

function frame(headers: Record<string, string>, payload: unknown): Uint8Array {
  const entries = Object.entries(headers).map(([name, value]) => [name, { type: 'string', value }] as const);
  return codec.encode({
    headers: Object.fromEntries(entries),
    body: new TextEncoder().encode(JSON.stringify(payload)),
  });
}

function event(type: string, payload: unknown): Uint8Array {
  return frame(
    { ':event-type': type, ':content-type': 'application/json', ':message-type': 'event' },
    payload,
  );
}

function exception(type: string, message: string): Uint8Array {
  return frame(
    { ':exception-type': type, ':content-type': 'application/json', ':message-type': 'exception' },
    { message },
  );
}

function translate(...frames: Uint8Array[]) {
  return collectStream(adapter.createStreamTranslator(context), Buffer.concat(frames));
}

function completion(stopReason: string, extra: object = {}): string {
  return JSON.stringify({
    output: { message: { role: 'assistant', content: [{ text: 'x' }] } },
    stopReason,
    ...extra,
  });
}

describe('bedrock-converse responses', () => {
  test('stop reasons', () => {
    const expected = {
      end_turn: 'stop',
      stop_sequence: 'stop',
      max_tokens: 'length',
      model_context_window_exceeded: 'length',
      tool_use: 'tool_calls',
      guardrail_intervened: 'content_filter',
      content_filtered: 'content_filter',
      malformed_model_output: 'stop',
      malformed_tool_use: 'stop',
    };
    for (const [reason, finish] of Object.entries(expected)) {
      assert.equal(adapter.parseResponse(completion(reason), context).response.finishReason, finish, reason);
    }
  });

  test('usage: input counts cache reads and writes, no reasoning figure; served tier', () => {
    const usage = {
      inputTokens: 10,
      outputTokens: 20,
      totalTokens: 45,
      cacheReadInputTokens: 5,
      cacheWriteInputTokens: 10,
    };
    const { response } = adapter.parseResponse(
      completion('end_turn', { usage, serviceTier: { type: 'flex' } }),
      context,
    );
    assert.deepEqual(
      response.usage,
      usageFromMeters({ input: 10, cached_input: 5, cache_write_5m: 10, output: 20 }),
    );
    assert.equal(response.usage?.inputTokens, 25);
    assert.equal(response.servedTier, 'flex');
  });

  test('usage: cacheDetails splits the writes by TTL; writes it does not place are 5-minute ones', () => {
    const usage = {
      inputTokens: 10,
      outputTokens: 20,
      totalTokens: 1530,
      cacheWriteInputTokens: 1500,
      cacheDetails: [
        { ttl: '1h', inputTokens: 1000 },
        { ttl: '5m', inputTokens: 300 },
      ],
    };
    const { response } = adapter.parseResponse(completion('end_turn', { usage }), context);
    assert.deepEqual(response.usage?.meters, {
      input: 10,
      cache_write_5m: 500,
      cache_write_1h: 1000,
      output: 20,
    });
  });

  test('reasoning blocks become thinking with signature and redacted thinking', () => {
    const content = [
      { reasoningContent: { reasoningText: { text: 'hmm', signature: 'c2ln' } } },
      { reasoningContent: { redactedContent: 'b3BhcXVl' } },
      { text: 'Paris.' },
    ];
    const body = JSON.stringify({
      output: { message: { role: 'assistant', content } },
      stopReason: 'end_turn',
    });
    assert.deepEqual(adapter.parseResponse(body, context).response.content, [
      { type: 'thinking', text: 'hmm', signature: 'c2ln' },
      { type: 'redacted_thinking', data: 'b3BhcXVl' },
      { type: 'text', text: 'Paris.' },
    ]);
  });

  test('a 2xx body that is not a Converse answer is a parse error', () => {
    assert.throws(() => adapter.parseResponse('<html>', context), AdapterParseError);
    assert.throws(() => adapter.parseResponse('{"output":{}}', context), AdapterParseError);
  });
});

describe('bedrock-converse stream', () => {
  test('thinking, signature and redacted deltas; tool indices count tool calls; empty input is {}', () => {
    const out = translate(
      event('messageStart', { role: 'assistant', p: 'abc' }),
      event('contentBlockDelta', {
        contentBlockIndex: 0,
        delta: { reasoningContent: { text: 'hmm' } },
        p: 'a',
      }),
      event('contentBlockDelta', {
        contentBlockIndex: 0,
        delta: { reasoningContent: { signature: 'c2ln' } },
      }),
      event('contentBlockDelta', {
        contentBlockIndex: 1,
        delta: { reasoningContent: { redactedContent: 'b3Bh' } },
      }),
      event('contentBlockStart', {
        contentBlockIndex: 2,
        start: { toolUse: { toolUseId: 'tooluse_a', name: 'f' } },
      }),
      event('contentBlockStop', { contentBlockIndex: 2 }),
      event('messageStop', { stopReason: 'tool_use' }),
      event('metadata', { usage: { inputTokens: 1, outputTokens: 2 }, serviceTier: { type: 'default' } }),
    );
    assert.equal(out.thinking, 'hmm');
    assert.equal(out.thinkingSignature, 'c2ln');
    assert.ok(out.events.some((e) => e.type === 'redacted_thinking' && e.data === 'b3Bh'));
    assert.deepEqual(out.toolCalls, [{ id: 'tooluse_a', name: 'f', arguments: '{}', starts: 1 }]);
    assert.deepEqual(out.events.at(-2), { type: 'served_tier', tier: 'standard' });
    assert.ok(out.done);
  });

  test('exception frames: one error with the mapped status, nothing after', () => {
    const cases = [
      ['throttlingException', 'rate_limited', 429, 'anywhere'],
      ['serviceQuotaExceededException', 'rate_limited', 429, 'anywhere'],
      ['serviceUnavailableException', 'server', 502, 'anywhere'],
      ['modelStreamErrorException', 'server', 502, 'elsewhere'],
      ['internalServerException', 'server', 502, 'elsewhere'],
      ['modelTimeoutException', 'timeout', 504, 'elsewhere'],
      ['anUnknownException', 'server', 502, 'elsewhere'],
      ['validationException', 'client', 400, undefined],
    ] as const;
    for (const [type, kind, status, retry] of cases) {
      const out = translate(
        event('messageStart', { role: 'assistant' }),
        exception(type, 'failed on ip-10-0-0-7.ec2.internal'),
        event('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'late' } }),
      );
      assert.deepEqual(
        out.events.map((e) => e.type),
        ['start', 'error'],
        type,
      );
      assert.deepEqual(
        [out.errors[0]?.kind, out.errors[0]?.status, out.errors[0]?.retry],
        [kind, status, retry],
      );
      assertNoLeak(out.errors[0]?.message ?? '');
    }
  });

  test('a corrupt frame (CRC mismatch) is one 502 error, wherever the reads are cut', () => {
    const bytes = fixtureBytes('text-stream.fixture.eventstream').slice();
    const first = new DataView(bytes.buffer).getUint32(0);
    bytes[first + 20] = (bytes[first + 20] ?? 0) ^ 0xff;
    for (const splits of [[], [3], [first + 1], [first + 21]]) {
      const out = collectStream(adapter.createStreamTranslator(context), bytes, splits);
      assert.deepEqual(
        out.events.map((e) => e.type),
        ['start', 'error'],
      );
      assert.deepEqual([out.errors[0]?.status, out.errors[0]?.retry], [502, 'elsewhere']);
    }
  });

  test('multi-byte text, the stream cut at every byte offset and in reused buffers', () => {
    const pieces = ['Grüße', ' 東京', ' 🙂'];
    const bytes = Buffer.concat([
      event('messageStart', { role: 'assistant' }),
      ...pieces.map((text) => event('contentBlockDelta', { contentBlockIndex: 0, delta: { text } })),
      event('messageStop', { stopReason: 'end_turn' }),
    ]);
    for (let at = 1; at < bytes.length; at++) {
      const translator = adapter.createStreamTranslator(context);
      // The network reuses its buffers once a read is handed over.
      const read = Buffer.from(bytes.subarray(0, at));
      const events = translator.push(read);
      read.fill(0);
      events.push(...translator.push(Buffer.from(bytes.subarray(at))), ...translator.end());
      const text = events.map((e) => (e.type === 'text' ? e.text : '')).join('');
      assert.equal(text, pieces.join(''), `cut at ${at}`);
      assert.equal(events.at(-1)?.type, 'done', `cut at ${at}`);
    }
  });

  test('a stream cut before messageStop ends in an error; after it, done', () => {
    const start = event('messageStart', { role: 'assistant' });
    const text = event('contentBlockDelta', { contentBlockIndex: 0, delta: { text: 'The' } });
    assert.equal(translate(start, text).events.at(-1)?.type, 'error');
    assert.equal(
      translate(start, text).errors[0]?.retry,
      'elsewhere',
      'cut short: it may have been worked on',
    );
    assert.equal(translate(start, text.subarray(0, 10)).events.at(-1)?.type, 'error');
    assert.equal(
      translate(start, text, event('messageStop', { stopReason: 'end_turn' })).events.at(-1)?.type,
      'done',
    );
  });

  test('fixtures are what fixtures/generate.ts writes', () => {
    for (const [name, content] of Object.entries(fixtureFiles())) {
      const stored = readFileSync(join(import.meta.dirname, 'fixtures', name));
      assert.ok(stored.equals(Buffer.from(content)), name);
    }
  });
});

describe('bedrock-converse error mapping', () => {
  const cases = [
    ['rateLimited', 'rate_limited', 429, 'anywhere'],
    ['modelNotReady', 'rate_limited', 429, 'anywhere'],
    ['quotaExceeded', 'rate_limited', 429, 'anywhere'],
    ['unavailable', 'server', 502, 'anywhere'],
    ['serverError', 'server', 502, 'elsewhere'],
    ['timeout', 'timeout', 504, 'elsewhere'],
    ['modelError', 'server', 502, 'elsewhere'],
    ['badRequest', 'client', 400, undefined],
    ['unauthorized', 'auth', 502, undefined],
    ['unrecognizedClient', 'auth', 502, undefined],
    ['untyped401', 'auth', 502, undefined],
    ['notFound', 'server', 502, undefined],
    ['onDemand', 'server', 502, undefined],
  ] as const;

  test('each Bedrock exception type, with where it may be retried and a message that leaks nothing', () => {
    for (const [name, kind, status, retry] of cases) {
      const failure = adapter.mapError(errorFixtures[name]);
      assert.deepEqual([failure.kind, failure.status, failure.retry], [kind, status, retry], name);
      assertNoLeak(failure.message);
      assert.doesNotMatch(failure.message, /123456789012|arn:aws|ec2/);
    }
    assert.equal(adapter.mapError(errorFixtures.modelNotReady).retryAfter, '3');
    assert.match(adapter.mapError(errorFixtures.onDemand).message, /inference profile/);
    assert.match(
      adapter.mapError(errorFixtures.badRequest).message,
      /temperature: range: 0\.\.1 \(model \[arn\]\)/,
    );
  });

  test('named exceptions beyond the fixtures, and statuses without a name', () => {
    const typed = (status: number, type: string) =>
      adapter.mapError({ status, headers: { 'x-amzn-errortype': `${type}:http://x` }, body: '{}' });
    const untyped = (status: number) => adapter.mapError({ status, headers: {}, body: '{}' });
    assert.equal(typed(500, 'ModelStreamErrorException').retry, 'elsewhere');
    assert.equal(typed(403, 'ExpiredTokenException').kind, 'auth');
    assert.equal(typed(400, 'ExpiredTokenException').retry, undefined);
    assert.deepEqual(
      [429, 503, 500, 502, 504, 409, 400].map((status) => untyped(status).retry),
      ['anywhere', 'anywhere', 'elsewhere', 'elsewhere', 'elsewhere', undefined, undefined],
    );
  });
});
