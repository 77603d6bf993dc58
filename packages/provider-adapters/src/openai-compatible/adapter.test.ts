import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AdapterParseError } from '../adapter.ts';
import { collectStream } from '../conformance/collect.ts';
import type { ChatCompletionRequest } from '../openai-types.ts';
import { errorFixtures, fixtureBytes } from './fixtures.ts';
import { openAICompatibleAdapter as adapter } from './index.ts';

const request: ChatCompletionRequest = {
  model: 'gpt-5.4:high@developer',
  messages: [{ role: 'user', content: 'hi' }],
  temperature: 0.3,
  logit_bias: { '50256': -100 },
  vendor_extension: { nested: [1, 2, 3] },
};

function built(
  input: Partial<ChatCompletionRequest>,
  options = { reasoningEffort: undefined, serviceTier: 'standard' } as const,
) {
  const out = adapter.buildRequest({
    request: { ...request, ...input },
    upstreamModel: 'gpt-5.4-2026-03-05',
    options,
  });
  return { ...out, json: JSON.parse(out.body) as Record<string, unknown> };
}

describe('openai-compatible request', () => {
  test('passes unknown fields untouched and sends the upstream model id', () => {
    const out = built({});
    assert.equal(out.method, 'POST');
    assert.equal(out.path, '/chat/completions');
    assert.equal(out.json.model, 'gpt-5.4-2026-03-05');
    assert.equal(out.json.temperature, 0.3);
    assert.deepEqual(out.json.logit_bias, { '50256': -100 });
    assert.deepEqual(out.json.vendor_extension, { nested: [1, 2, 3] });
    assert.equal('stream_options' in out.json, false);
    assert.equal('reasoning_effort' in out.json, false);
    assert.equal('service_tier' in out.json, false);
  });

  test('applies the gateway effort and flex tier, replacing client values', () => {
    const out = built({ reasoning_effort: 'low', service_tier: 'priority' }, {
      reasoningEffort: 'high',
      serviceTier: 'flex',
    } as never);
    assert.equal(out.json.reasoning_effort, 'high');
    assert.equal(out.json.service_tier, 'flex');
  });

  test('effort none is sent when given; an undefined effort drops the client value', () => {
    assert.equal(
      built({}, { reasoningEffort: 'none', serviceTier: 'standard' } as never).json.reasoning_effort,
      'none',
    );
    assert.equal('reasoning_effort' in built({ reasoning_effort: 'low' }).json, false);
  });

  test('streams always ask for usage, keeping other stream options', () => {
    const out = built({ stream: true, stream_options: { include_obfuscation: false } });
    assert.deepEqual(out.json.stream_options, { include_obfuscation: false, include_usage: true });
    assert.equal(out.headers.accept, 'text/event-stream');
    assert.equal(
      'stream_options' in built({ stream: false, stream_options: { include_usage: true } }).json,
      false,
    );
  });
});

describe('openai-compatible responses', () => {
  test('a 2xx body that is not a completion is a parse error', () => {
    const context = { model: 'm', includeUsage: false };
    assert.throws(() => adapter.parseResponse('<html>', context), AdapterParseError);
    assert.throws(() => adapter.parseResponse('{"object":"list"}', context), AdapterParseError);
  });

  test('a completion without usage parses with usage undefined', () => {
    const body = JSON.stringify({ id: 'x', object: 'chat.completion', created: 1, model: 'u', choices: [] });
    assert.equal(adapter.parseResponse(body, { model: 'm', includeUsage: false }).usage, undefined);
  });

  test('usage on the last content chunk (vLLM style, CRLF, no final blank line) becomes its own usage chunk', () => {
    const translator = adapter.createStreamTranslator({ model: 'm', includeUsage: true });
    const out = collectStream(translator, fixtureBytes('usage-on-last-chunk-stream.fixture.sse'));
    assert.equal(out.text, 'The capital of France is Paris.');
    assert.deepEqual(out.usage, {
      promptTokens: 21,
      completionTokens: 8,
      cachedTokens: 5,
      reasoningTokens: 2,
    });
    assert.deepEqual(out.finishReasons, ['stop']);
    assert.equal(out.usageChunks.length, 1);
    assert.deepEqual(out.usageChunks[0]?.choices, []);
    assert.ok(out.chunks.every((chunk) => chunk.usage === null));
    assert.ok(out.done);
  });

  test('a malformed event ends the stream with one error', () => {
    const translator = adapter.createStreamTranslator({ model: 'm', includeUsage: false });
    const out = collectStream(translator, new TextEncoder().encode('data: {"choices":[\n\ndata: [DONE]\n\n'));
    assert.deepEqual(
      out.events.map((event) => event.type),
      ['error'],
    );
  });
});

describe('openai-compatible error mapping', () => {
  test('scrubs keys and URLs from client-error messages', () => {
    const failure = adapter.mapError(errorFixtures.badRequestWithKey);
    assert.equal(failure.status, 400);
    assert.doesNotMatch(failure.message, /sk-proj|openai\.com|https:/);
    assert.match(failure.message, /\[redacted\]/);
  });

  test('404 (unknown upstream model) and HTML 503 pages are provider faults with gateway-written messages', () => {
    const notFound = adapter.mapError(errorFixtures.notFound);
    assert.deepEqual([notFound.kind, notFound.status], ['server', 502]);
    assert.doesNotMatch(notFound.message, /internal-preview/);
    const html = adapter.mapError(errorFixtures.overloadedHtml);
    assert.deepEqual([html.kind, html.status], ['server', 502]);
    assert.doesNotMatch(html.message, /amazonaws|<html/);
  });

  test('the rate-limit message keeps its substance without the organisation id or URL', () => {
    const failure = adapter.mapError(errorFixtures.rateLimited);
    assert.match(failure.message, /Rate limit reached/);
    assert.doesNotMatch(failure.message, /org-Abc|platform\.openai/);
  });

  test('Retry-After: HTTP-dates pass, garbage is dropped', () => {
    const date = 'Wed, 21 Oct 2026 07:28:00 GMT';
    const withDate = adapter.mapError({ status: 429, headers: { 'retry-after': date }, body: '' });
    assert.equal(withDate.retryAfter, date);
    const garbage = adapter.mapError({ status: 429, headers: { 'retry-after': 'soon\r\nx: y' }, body: '' });
    assert.equal(garbage.retryAfter, undefined);
  });
});
