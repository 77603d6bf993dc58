/**
 * The conformance exchanges of every adapter, answered to a Gemini client: whatever upstream
 * served them, the Gemini answer (JSON, and a stream read back through the Gemini reader)
 * carries the canonical text, the two function calls, the finish and the usage.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { anthropicConformanceFixtures } from '../../anthropic/fixtures.ts';
import { bedrockConformanceFixtures } from '../../bedrock-converse/fixtures.ts';
import { collectStream, responseText, responseToolCalls } from '../../conformance/collect.ts';
import { CANONICAL, type ConformanceFixtures } from '../../conformance/scenarios.ts';
import { geminiConformanceFixtures } from '../../gemini/fixtures.ts';
import type { JsonObject } from '../../json.ts';
import type { WireApi } from '../../model/request.ts';
import { openAIConformanceFixtures } from '../../openai/fixtures.ts';
import { ADAPTERS } from '../../registry.ts';
import { vertexClaudeConformanceFixtures } from '../../vertex-claude/fixtures.ts';
import { vertexGeminiConformanceFixtures } from '../../vertex-gemini/fixtures.ts';
import { encodeGenerateContentResponse, type GeminiEnvelope } from './encode-response.ts';
import { formatSseChunk, GeminiChunkEncoder } from './encode-stream.ts';
import { parseGenerateContent } from './response.ts';
import { createGeminiStreamTranslator } from './stream.ts';
import { GEMINI_API } from './types.ts';

const FIXTURES: ReadonlyArray<readonly [keyof typeof ADAPTERS, ConformanceFixtures]> = [
  ['openai', openAIConformanceFixtures],
  ['anthropic', anthropicConformanceFixtures],
  ['vertex-claude', vertexClaudeConformanceFixtures],
  ['bedrock-converse', bedrockConformanceFixtures],
  ['gemini', geminiConformanceFixtures],
  ['vertex-gemini', vertexGeminiConformanceFixtures],
];

const ENVELOPE: GeminiEnvelope = { modelVersion: 'm', responseId: 'r', includeThoughts: false };
const CALLS = CANONICAL.tools.map((tool) => [tool.name, tool.arguments]);

/** A Gemini upstream answers a Gemini client natively; the re-encoding is for the others. */
function clientApiFor(id: keyof typeof ADAPTERS): WireApi {
  return ADAPTERS[id].wireApi === GEMINI_API ? 'anthropic-messages' : GEMINI_API;
}

function streamedToGemini(id: keyof typeof ADAPTERS, bytes: Uint8Array) {
  const translator = ADAPTERS[id].createStreamTranslator({ clientApi: clientApiFor(id) });
  const encoder = new GeminiChunkEncoder(ENVELOPE);
  const events = [...translator.push(bytes), ...translator.end()];
  const sse = events
    .flatMap((event) => encoder.encode(event))
    .map(formatSseChunk)
    .join('');
  return collectStream(createGeminiStreamTranslator(), new TextEncoder().encode(sse));
}

for (const [id, fixtures] of FIXTURES) {
  describe(`a Gemini client answered from ${id}`, () => {
    test('JSON: the canonical text, the two calls with their ids, the finish and the usage', () => {
      const adapter = ADAPTERS[id];
      const text = adapter.parseResponse(fixtures.textCompletion, { clientApi: clientApiFor(id) }).response;
      const back = parseGenerateContent(
        JSON.stringify(encodeGenerateContentResponse(text, ENVELOPE)),
      ).response;
      assert.equal(responseText(back), CANONICAL.text);
      assert.equal(back.finishReason, 'stop');
      assert.equal(back.usage?.inputTokens, fixtures.expected.textUsage.inputTokens);
      assert.equal(back.usage?.outputTokens, fixtures.expected.textUsage.outputTokens);
      const tools = adapter.parseResponse(fixtures.toolCallCompletion, {
        clientApi: clientApiFor(id),
      }).response;
      const body = encodeGenerateContentResponse(tools, ENVELOPE);
      const calls = responseToolCalls(parseGenerateContent(JSON.stringify(body)).response);
      assert.deepEqual(
        calls.map((call) => [call.name, JSON.parse(call.arguments) as JsonObject]),
        CALLS,
      );
      assert.deepEqual(
        calls.map((call) => call.id),
        responseToolCalls(tools).map((call) => call.id),
        'the upstream’s ids, as the client will send them back',
      );
    });

    test('stream: the same text, calls, finish and usage read back from the SSE chunks', () => {
      const text = streamedToGemini(id, fixtures.textStream);
      assert.equal(text.text, CANONICAL.text);
      assert.deepEqual(text.finishReasons, ['stop']);
      assert.equal(text.usage?.inputTokens, fixtures.expected.textUsage.inputTokens);
      assert.equal(text.usage?.outputTokens, fixtures.expected.textUsage.outputTokens);
      assert.ok(text.done);
      const tools = streamedToGemini(id, fixtures.toolCallStream);
      assert.deepEqual(
        tools.toolCalls.map((call) => [call.name, JSON.parse(call.arguments) as JsonObject]),
        CALLS,
      );
      assert.deepEqual(tools.finishReasons, ['tool_calls']);
    });
  });
}
