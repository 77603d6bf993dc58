import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { collectStream } from '../conformance/collect.ts';
import { errorFixtures, fixtureText } from './fixtures.ts';
import { geminiAdapter as adapter } from './index.ts';
import { usageFromMeters } from '../model/usage.ts';

const encoder = new TextEncoder();
const sse = (...chunks: object[]) =>
  encoder.encode(chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\r\n\r\n`).join(''));

function parse(candidate: object, extra: object = {}) {
  return adapter.parseResponse(JSON.stringify({ candidates: [candidate], responseId: 'r1', ...extra }), {
    clientApi: 'openai-chat',
  }).response;
}

describe('gemini response', () => {
  test('finish reasons: STOP, tool calls, MAX_TOKENS, safety, malformed call', () => {
    const text = { content: { role: 'model', parts: [{ text: 'x' }] } };
    const call = { content: { role: 'model', parts: [{ functionCall: { name: 'f', args: {} } }] } };
    assert.equal(parse({ ...text, finishReason: 'STOP' }).finishReason, 'stop');
    assert.equal(parse({ ...call, finishReason: 'STOP' }).finishReason, 'tool_calls');
    assert.equal(parse({ ...text, finishReason: 'MAX_TOKENS' }).finishReason, 'length');
    for (const reason of ['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'IMAGE_SAFETY'])
      assert.equal(parse({ finishReason: reason }).finishReason, 'content_filter', reason);
    assert.equal(parse({ finishReason: 'MALFORMED_FUNCTION_CALL' }).finishReason, 'stop');
    const blocked = adapter.parseResponse(
      '{"promptFeedback":{"blockReason":"SAFETY"},"usageMetadata":{"promptTokenCount":9}}',
      {
        clientApi: 'openai-chat',
      },
    ).response;
    assert.deepEqual(
      [blocked.finishReason, blocked.content, blocked.usage?.inputTokens],
      ['content_filter', [], 9],
    );
    assert.throws(
      () => adapter.parseResponse('{"candidates":[]}', { clientApi: 'openai-chat' }),
      /not a generateContent/,
    );
  });

  test('calls: ids from Google or made from the response id, signatures kept; thoughts as thinking', () => {
    const { content } = parse({
      content: {
        role: 'model',
        parts: [
          { text: 'plan', thought: true, thoughtSignature: 'T' },
          { functionCall: { name: 'a', args: { x: 1 } }, thoughtSignature: 'S' },
          { functionCall: { name: 'b', args: {}, id: 'given' } },
        ],
      },
      finishReason: 'STOP',
    });
    assert.deepEqual(content, [
      { type: 'thinking', text: 'plan', signature: 'T' },
      { type: 'tool_call', id: 'call_r1_0', name: 'a', arguments: '{"x":1}', signature: 'S' },
      { type: 'tool_call', id: 'given', name: 'b', arguments: '{}' },
    ]);
  });

  test('usage: a long prompt (over 200,000 tokens) is metered whole, cached part apart', () => {
    const { usage } = parse(
      { content: { role: 'model', parts: [{ text: 'ok' }] }, finishReason: 'STOP' },
      {
        usageMetadata: {
          promptTokenCount: 250_000,
          cachedContentTokenCount: 50_000,
          candidatesTokenCount: 3,
        },
      },
    );
    assert.deepEqual(usage?.meters, { input: 200_000, cached_input: 50_000, output: 3 });
    assert.equal(usage?.inputTokens, 250_000);
  });

  test('usage: cached inside the prompt, thoughts inside the output, tool-use prompt and search counted', () => {
    const { usage, servedTier, content } = parse(
      {
        content: { role: 'model', parts: [{ text: 'Paris é' }, { text: ' nice.' }] },
        finishReason: 'STOP',
        groundingMetadata: {
          webSearchQueries: ['capital of france'],
          groundingChunks: [{ web: { uri: 'https://example.org/p', title: 'example.org' } }],
          groundingSupports: [
            { segment: { startIndex: 6, endIndex: 8, text: 'é' }, groundingChunkIndices: [0] },
          ],
        },
      },
      {
        usageMetadata: {
          promptTokenCount: 100,
          cachedContentTokenCount: 60,
          toolUsePromptTokenCount: 7,
          candidatesTokenCount: 5,
          thoughtsTokenCount: 11,
          trafficType: 'ON_DEMAND_FLEX',
        },
      },
    );
    assert.deepEqual(
      usage,
      usageFromMeters({ input: 47, cached_input: 60, output: 5, reasoning: 11, web_search_calls: 1 }),
    );
    assert.equal(usage?.inputTokens, 107);
    assert.equal(servedTier, 'flex');
    assert.deepEqual(content, [
      {
        type: 'text',
        text: 'Paris é nice.',
        citations: [
          {
            type: 'url',
            url: 'https://example.org/p',
            title: 'example.org',
            citedText: 'é',
            startIndex: 6,
            endIndex: 7,
          },
        ],
      },
    ]);
    assert.equal(
      parse({ finishReason: 'STOP' }, { usageMetadata: { trafficType: 'ON_DEMAND_PRIORITY' } }).servedTier,
      'priority',
    );
    assert.equal(parse({ finishReason: 'STOP' }).servedTier, undefined);
  });
});

describe('gemini stream', () => {
  const translate = (bytes: Uint8Array) =>
    collectStream(adapter.createStreamTranslator({ clientApi: 'openai-chat' }), bytes);

  test('thoughts, calls whole, safety finish, one usage before done', () => {
    const out = translate(
      sse(
        {
          candidates: [{ content: { parts: [{ text: 'hm', thought: true, thoughtSignature: 'T' }] } }],
          responseId: 'r',
        },
        {
          candidates: [{ content: { parts: [{ functionCall: { name: 'f', args: { a: 1 } } }] } }],
          usageMetadata: { promptTokenCount: 1 },
        },
        {
          candidates: [{ finishReason: 'SAFETY' }],
          usageMetadata: { promptTokenCount: 3, candidatesTokenCount: 2 },
        },
      ),
    );
    assert.equal(out.thinking, 'hm');
    assert.equal(out.thinkingSignature, 'T');
    assert.deepEqual(out.toolCalls, [{ id: 'call_r_0', name: 'f', arguments: '{"a":1}', starts: 1 }]);
    assert.deepEqual(out.finishReasons, ['content_filter']);
    assert.equal(out.usage?.inputTokens, 3);
    assert.equal(out.events.filter((event) => event.type === 'usage').length, 1);
    assert.ok(out.done);
  });

  test('a body that ends before a finish reason is an error, not a clean end', () => {
    const out = translate(sse({ candidates: [{ content: { parts: [{ text: 'The' }] } }] }));
    assert.equal(out.text, 'The');
    assert.equal(out.done, false);
    assert.equal(out.errors[0]?.status, 502);
  });

  test('an error event mid-stream maps like an error response and ends the stream', () => {
    const out = translate(
      sse(
        { candidates: [{ content: { parts: [{ text: 'The' }] } }] },
        { error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: 'quota' } },
        { candidates: [{ content: { parts: [{ text: 'more' }] }, finishReason: 'STOP' }] },
      ),
    );
    assert.equal(out.text, 'The');
    assert.deepEqual([out.events.at(-1)?.type, out.errors[0]?.kind], ['error', 'rate_limited']);
  });
});

describe('gemini errors', () => {
  test('429: Retry-After from the RetryInfo detail, rounded up', () => {
    assert.deepEqual(adapter.mapError(errorFixtures.rateLimited).retryAfter, '7');
  });

  test('a bad API key (400 INVALID_ARGUMENT) is the gateway’s fault: 502', () => {
    assert.deepEqual(adapter.mapError(errorFixtures.unauthorized), {
      kind: 'auth',
      status: 502,
      message: "the provider did not accept the gateway's credentials.",
    });
  });

  test('unknown model, overload and a 5xx are 502; DEADLINE_EXCEEDED is 504', () => {
    for (const name of ['notFound', 'unavailable', 'serverError'] as const)
      assert.deepEqual(
        [adapter.mapError(errorFixtures[name]).status, adapter.mapError(errorFixtures[name]).kind],
        [502, 'server'],
      );
    assert.equal(adapter.mapError(errorFixtures.timeout).status, 504);
  });

  test('a safety refusal is a client error with code content_filter', () => {
    const failure = adapter.mapError({
      status: 400,
      headers: {},
      body: '{"error":{"code":400,"message":"The request was blocked due to safety reasons.","status":"INVALID_ARGUMENT"}}',
    });
    assert.deepEqual([failure.kind, failure.status, failure.code], ['client', 400, 'content_filter']);
  });

  test('the client message is Google’s, scrubbed', () => {
    assert.match(adapter.mapError(errorFixtures.badRequest).message, /generation_config\.temperature/);
    assert.match(fixtureText('errors.fixture.json'), /RetryInfo/);
  });
});
