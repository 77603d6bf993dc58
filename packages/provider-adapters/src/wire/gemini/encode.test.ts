import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { JsonObject } from '../../json.ts';
import type { ModelResponse, StreamEvent } from '../../model/response.ts';
import { collectStream } from '../../conformance/collect.ts';
import { encodeGenerateContentResponse, type GeminiEnvelope } from './encode-response.ts';
import { formatSseChunk, GeminiChunkEncoder, JsonArrayFramer } from './encode-stream.ts';
import { googleErrorBody, googleStatusOf, retryInfoDetail } from './error-envelope.ts';
import { parseGenerateContent } from './response.ts';
import { createGeminiStreamTranslator } from './stream.ts';
import { usageFromMeters } from '../../model/usage.ts';

const ENVELOPE: GeminiEnvelope = {
  modelVersion: 'claude-sonnet-4-6',
  responseId: 'resp_1',
  includeThoughts: true,
};
const USAGE = usageFromMeters({ input: 200, cached_input: 1000, output: 50, reasoning: 100 });

const RESPONSE: ModelResponse = {
  id: 'msg_1',
  content: [
    { type: 'thinking', text: 'The user wants weather.', signature: 'EqMBCkYIBRgCKkD' },
    { type: 'text', text: 'Checking.' },
    { type: 'tool_call', id: 'toolu_01A', name: 'get_weather', arguments: '{"city":"Paris"}' },
  ],
  finishReason: 'tool_calls',
  usage: USAGE,
};

describe('gemini client answer (JSON)', () => {
  test('parts in order, ids and signatures in Google fields, STOP for calls, usage', () => {
    assert.deepEqual(encodeGenerateContentResponse(RESPONSE, ENVELOPE), {
      candidates: [
        {
          content: {
            role: 'model',
            parts: [
              { text: 'The user wants weather.', thought: true, thoughtSignature: 'EqMBCkYIBRgCKkD' },
              { text: 'Checking.' },
              { functionCall: { name: 'get_weather', args: { city: 'Paris' }, id: 'toolu_01A' } },
            ],
          },
          finishReason: 'STOP',
          index: 0,
        },
      ],
      usageMetadata: {
        promptTokenCount: 1200,
        candidatesTokenCount: 50,
        totalTokenCount: 1350,
        cachedContentTokenCount: 1000,
        thoughtsTokenCount: 100,
      },
      modelVersion: 'claude-sonnet-4-6',
      responseId: 'resp_1',
    });
  });

  test('thoughts not asked for are hidden; their signature rides the next part', () => {
    const body = encodeGenerateContentResponse(RESPONSE, { ...ENVELOPE, includeThoughts: false });
    const candidate = (body.candidates as JsonObject[])[0] as { content: { parts: JsonObject[] } };
    assert.deepEqual(candidate.content.parts[0], { text: 'Checking.', thoughtSignature: 'EqMBCkYIBRgCKkD' });
  });

  test('finish reasons and citations as grounding; the answer reads back the same', () => {
    const reasons = (['stop', 'length', 'content_filter', 'pause'] as const).map((finishReason) => {
      const body = encodeGenerateContentResponse({ ...RESPONSE, finishReason }, ENVELOPE);
      return (body.candidates as JsonObject[])[0]?.finishReason;
    });
    assert.deepEqual(reasons, ['STOP', 'MAX_TOKENS', 'SAFETY', 'STOP']);
    const cited: ModelResponse = {
      ...RESPONSE,
      content: [
        { type: 'text', text: 'Paris.', citations: [{ type: 'url', url: 'https://a.test', title: 'A' }] },
      ],
    };
    const body = encodeGenerateContentResponse(cited, ENVELOPE);
    assert.deepEqual((body.candidates as JsonObject[])[0]?.groundingMetadata, {
      groundingChunks: [{ web: { uri: 'https://a.test', title: 'A' } }],
    });
    const back = parseGenerateContent(
      JSON.stringify(encodeGenerateContentResponse(RESPONSE, ENVELOPE)),
    ).response;
    assert.deepEqual(back.content, RESPONSE.content);
    assert.deepEqual(back.usage, USAGE);
  });
});

const EVENTS: StreamEvent[] = [
  { type: 'start', id: 'msg_1' },
  { type: 'thinking', text: 'Weather ' },
  { type: 'thinking', text: 'needed.' },
  { type: 'thinking', signature: 'EqMBCkYIBRgCKkD' },
  { type: 'text', text: 'Check' },
  { type: 'text', text: 'ing.' },
  { type: 'tool_call_start', index: 0, id: 'toolu_01A', name: 'get_weather' },
  { type: 'tool_call_delta', index: 0, arguments: '{"city":' },
  { type: 'tool_call_delta', index: 0, arguments: '"Paris"}' },
  { type: 'tool_call_start', index: 1, id: 'toolu_01B', name: 'get_time' },
  { type: 'tool_call_delta', index: 1, arguments: '{"city":"Paris"}' },
  { type: 'finish', reason: 'tool_calls' },
  { type: 'usage', usage: USAGE },
  { type: 'done' },
];

function chunksOf(events: readonly StreamEvent[], envelope = ENVELOPE): JsonObject[] {
  const encoder = new GeminiChunkEncoder(envelope);
  return events.flatMap((event) => encoder.encode(event));
}

const partsOf = (chunk: JsonObject | undefined) =>
  ((chunk?.candidates as JsonObject[] | undefined)?.[0]?.content as { parts: JsonObject[] }).parts;

describe('gemini client answer (stream)', () => {
  test('text and thoughts as they come, each call whole, finish and usage on the last chunk', () => {
    const chunks = chunksOf(EVENTS);
    assert.deepEqual(chunks.map(partsOf), [
      [{ text: 'Weather ', thought: true }],
      [{ text: 'needed.', thought: true }],
      [{ text: '', thought: true, thoughtSignature: 'EqMBCkYIBRgCKkD' }],
      [{ text: 'Check' }],
      [{ text: 'ing.' }],
      [{ functionCall: { name: 'get_weather', args: { city: 'Paris' }, id: 'toolu_01A' } }],
      [{ functionCall: { name: 'get_time', args: { city: 'Paris' }, id: 'toolu_01B' } }],
    ]);
    const last = chunks.at(-1) ?? {};
    assert.equal((last.candidates as JsonObject[])[0]?.finishReason, 'STOP');
    assert.deepEqual(last.usageMetadata, encodeGenerateContentResponse(RESPONSE, ENVELOPE).usageMetadata);
    assert.ok(chunks.slice(0, -1).every((chunk) => chunk.usageMetadata === undefined));
    assert.ok(
      chunks.every((chunk) => chunk.responseId === 'resp_1' && chunk.modelVersion === 'claude-sonnet-4-6'),
    );
  });

  test('hidden thoughts: the signature goes on the next part, or an empty text part at the end', () => {
    const hidden = { ...ENVELOPE, includeThoughts: false };
    assert.deepEqual(partsOf(chunksOf(EVENTS, hidden)[0]), [
      { text: 'Check', thoughtSignature: 'EqMBCkYIBRgCKkD' },
    ]);
    const only = chunksOf([{ type: 'thinking', text: 'x', signature: 'U0lH' }, { type: 'done' }], hidden);
    assert.deepEqual(only.map(partsOf), [[{ text: '', thoughtSignature: 'U0lH' }]]);
  });

  test('SSE framing reads back through the Gemini stream reader: same text, calls, usage', () => {
    const sse = chunksOf(EVENTS).map(formatSseChunk).join('');
    assert.ok(sse.startsWith('data: {"candidates"'));
    assert.ok(sse.endsWith('}\r\n\r\n'));
    const out = collectStream(createGeminiStreamTranslator(), new TextEncoder().encode(sse));
    assert.equal(out.text, 'Checking.');
    assert.equal(out.thinking, 'Weather needed.');
    assert.deepEqual(
      out.toolCalls.map((call) => [call.id, call.name, call.arguments]),
      [
        ['toolu_01A', 'get_weather', '{"city":"Paris"}'],
        ['toolu_01B', 'get_time', '{"city":"Paris"}'],
      ],
    );
    assert.deepEqual(out.usage, USAGE);
    assert.deepEqual(out.finishReasons, ['tool_calls']);
    assert.ok(out.done);
  });

  test('JSON-array framing: the whole body is one JSON array of the chunks', () => {
    const chunks = chunksOf(EVENTS);
    const framer = new JsonArrayFramer();
    const body = chunks.map((chunk) => framer.chunk(chunk)).join('') + framer.end();
    assert.match(body, /^\[\{.*\}\r\n,\{/s);
    assert.ok(body.endsWith('}\r\n]'));
    assert.deepEqual(JSON.parse(body), chunks);
    assert.equal(new JsonArrayFramer().end(), '[]');
  });
});

describe('Google error envelope', () => {
  test('HTTP status -> code name; the body as Google writes it', () => {
    assert.deepEqual(
      [400, 401, 402, 403, 404, 409, 413, 429, 499, 500, 501, 502, 503, 504, 418].map(googleStatusOf),
      [
        'INVALID_ARGUMENT',
        'UNAUTHENTICATED',
        'PERMISSION_DENIED',
        'PERMISSION_DENIED',
        'NOT_FOUND',
        'ABORTED',
        'INVALID_ARGUMENT',
        'RESOURCE_EXHAUSTED',
        'CANCELLED',
        'INTERNAL',
        'UNIMPLEMENTED',
        'INTERNAL',
        'UNAVAILABLE',
        'DEADLINE_EXCEEDED',
        'FAILED_PRECONDITION',
      ],
    );
    assert.deepEqual(googleErrorBody(404, 'no such model'), {
      error: { code: 404, message: 'no such model', status: 'NOT_FOUND' },
    });
    assert.deepEqual(googleErrorBody(400, 'x', 'FAILED_PRECONDITION'), {
      error: { code: 400, message: 'x', status: 'FAILED_PRECONDITION' },
    });
    assert.deepEqual(googleErrorBody(429, 'slow down', undefined, [retryInfoDetail(7)]), {
      error: {
        code: 429,
        message: 'slow down',
        status: 'RESOURCE_EXHAUSTED',
        details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '7s' }],
      },
    });
  });
});
