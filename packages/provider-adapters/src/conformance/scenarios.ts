/**
 * Scenarios every adapter must pass, whatever its wire format. Each adapter records the same
 * canonical exchanges in its own format (fixtures) and runs `runConformance` over them: the
 * OpenAI side the gateway's clients see must come out identical.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ProviderAdapter, UpstreamErrorResponse } from '../adapter.ts';
import { isJsonObject } from '../openai-types.ts';
import { collectStream } from './collect.ts';

export const CANONICAL = {
  model: 'gateway-model-2026-01-01',
  text: 'The capital of France is Paris.',
  textUsage: { promptTokens: 21, completionTokens: 8, cachedTokens: 5, reasoningTokens: 2 },
  tool: { name: 'get_weather', arguments: { city: 'Paris' } },
  toolUsage: { promptTokens: 40, completionTokens: 12, cachedTokens: 0, reasoningTokens: 0 },
  retryAfter: '7',
} as const;

export interface ConformanceFixtures {
  readonly textCompletion: string;
  readonly toolCallCompletion: string;
  readonly textStream: Uint8Array;
  readonly toolCallStream: Uint8Array;
  /** Two content pieces ("The", " capital"), then an upstream error event. */
  readonly midStreamError: Uint8Array;
  readonly errors: {
    readonly rateLimited: UpstreamErrorResponse;
    readonly badRequest: UpstreamErrorResponse;
    readonly unauthorized: UpstreamErrorResponse;
    readonly serverError: UpstreamErrorResponse;
    readonly timeout: UpstreamErrorResponse;
  };
}

/** Text that must never reach a client: hosts, addresses, keys, organisation ids. */
const LEAKS = [/internal/i, /\.com\b/i, /\bsk-/, /\b\d{1,3}(?:\.\d{1,3}){3}\b/, /\borg-[A-Za-z0-9]/];

function assertNoLeak(message: string): void {
  for (const pattern of LEAKS) assert.doesNotMatch(message, pattern);
}

/** Every split point for short inputs; a spread of them for long ones. */
function splitPoints(length: number): number[][] {
  const step = Math.max(1, Math.floor(length / 200));
  const out: number[][] = [[]];
  for (let i = 1; i < length; i += step) out.push([i]);
  out.push(Array.from({ length: length - 1 }, (_, i) => i + 1));
  return out;
}

function textCompletion(adapter: ProviderAdapter, fixtures: ConformanceFixtures): void {
  const context = { model: CANONICAL.model, includeUsage: false };
  const { completion, usage } = adapter.parseResponse(fixtures.textCompletion, context);
  const choice = completion.choices[0];
  assert.ok(choice && isJsonObject(choice.message));
  assert.equal(choice.message.content, CANONICAL.text);
  assert.equal(choice.finish_reason, 'stop');
  assert.equal(completion.model, CANONICAL.model);
  assert.equal(completion.object, 'chat.completion');
  assert.deepEqual(usage, CANONICAL.textUsage);
}

function toolCallCompletion(adapter: ProviderAdapter, fixtures: ConformanceFixtures): void {
  const context = { model: CANONICAL.model, includeUsage: false };
  const { completion, usage } = adapter.parseResponse(fixtures.toolCallCompletion, context);
  const choice = completion.choices[0];
  assert.ok(choice && isJsonObject(choice.message) && Array.isArray(choice.message.tool_calls));
  const call = choice.message.tool_calls[0] as {
    type: string;
    function: { name: string; arguments: string };
  };
  assert.equal(call.type, 'function');
  assert.equal(call.function.name, CANONICAL.tool.name);
  assert.deepEqual(JSON.parse(call.function.arguments), CANONICAL.tool.arguments);
  assert.equal(choice.finish_reason, 'tool_calls');
  assert.deepEqual(usage, CANONICAL.toolUsage);
}

function textStream(adapter: ProviderAdapter, fixtures: ConformanceFixtures): void {
  for (const splits of splitPoints(fixtures.textStream.length)) {
    for (const includeUsage of [false, true]) {
      const translator = adapter.createStreamTranslator({ model: CANONICAL.model, includeUsage });
      const out = collectStream(translator, fixtures.textStream, splits);
      assert.equal(out.text, CANONICAL.text);
      assert.deepEqual(out.finishReasons, ['stop']);
      assert.deepEqual(out.usage, CANONICAL.textUsage);
      assert.ok(out.done);
      assert.ok(out.chunks.every((chunk) => chunk.model === CANONICAL.model));
      assert.ok(out.chunks.every((chunk) => chunk.object === 'chat.completion.chunk'));
      if (includeUsage) {
        assert.ok(out.chunks.every((chunk) => chunk.usage === null));
        assert.equal(out.usageChunks.length, 1);
        assert.deepEqual(out.usageChunks[0]?.choices, []);
        assert.equal(out.usageChunks[0]?.usage?.prompt_tokens, CANONICAL.textUsage.promptTokens);
      } else {
        assert.ok(out.chunks.every((chunk) => !('usage' in chunk)));
        assert.equal(out.usageChunks.length, 0);
      }
    }
  }
}

function toolCallStream(adapter: ProviderAdapter, fixtures: ConformanceFixtures): void {
  const context = { model: CANONICAL.model, includeUsage: false };
  for (const splits of splitPoints(fixtures.toolCallStream.length)) {
    const translator = adapter.createStreamTranslator(context);
    const out = collectStream(translator, fixtures.toolCallStream, splits);
    assert.equal(out.toolCalls.length, 1);
    assert.equal(out.toolCalls[0]?.name, CANONICAL.tool.name);
    assert.ok(out.toolCalls[0]?.id);
    assert.deepEqual(JSON.parse(out.toolCalls[0]?.arguments ?? ''), CANONICAL.tool.arguments);
    assert.deepEqual(out.finishReasons, ['tool_calls']);
    assert.deepEqual(out.usage, CANONICAL.toolUsage);
  }
}

function midStreamError(adapter: ProviderAdapter, fixtures: ConformanceFixtures): void {
  const context = { model: CANONICAL.model, includeUsage: false };
  const out = collectStream(adapter.createStreamTranslator(context), fixtures.midStreamError);
  assert.equal(out.text, 'The capital');
  const last = out.events.at(-1);
  assert.ok(last?.type === 'error');
  assert.equal(last.failure.kind, 'server');
  assert.equal(last.failure.status, 502);
  assertNoLeak(last.failure.message);
  assert.equal(out.events.filter((event) => event.type === 'error').length, 1);
}

function errorMapping(adapter: ProviderAdapter, fixtures: ConformanceFixtures): void {
  const limited = adapter.mapError(fixtures.errors.rateLimited);
  assert.deepEqual([limited.kind, limited.status, limited.retryAfter], ['rate_limited', 429, '7']);
  const bad = adapter.mapError(fixtures.errors.badRequest);
  assert.deepEqual([bad.kind, bad.status], ['client', 400]);
  assert.match(bad.message, /temperature/);
  const auth = adapter.mapError(fixtures.errors.unauthorized);
  assert.deepEqual([auth.kind, auth.status], ['server', 502]);
  const server = adapter.mapError(fixtures.errors.serverError);
  assert.deepEqual([server.kind, server.status], ['server', 502]);
  const timeout = adapter.mapError(fixtures.errors.timeout);
  assert.deepEqual([timeout.kind, timeout.status], ['timeout', 504]);
  for (const failure of [limited, bad, auth, server, timeout]) assertNoLeak(failure.message);
}

type Scenario = (adapter: ProviderAdapter, fixtures: ConformanceFixtures) => void;

const SCENARIOS: ReadonlyArray<readonly [string, Scenario]> = [
  ['text completion: content, finish reason, usage, gateway model name', textCompletion],
  ['tool-call completion: one function call with JSON arguments', toolCallCompletion],
  ['text stream, cut at any byte: same text, usage and end, with or without include_usage', textStream],
  ['tool-call stream: arguments reassemble to the call', toolCallStream],
  ['mid-stream upstream error: content so far, then one safe error event, nothing after', midStreamError],
  [
    'errors: 429 keeps its status and Retry-After; client errors 400; provider faults 502; timeouts 504',
    errorMapping,
  ],
];

export function runConformance(adapter: ProviderAdapter, fixtures: ConformanceFixtures): void {
  describe(`adapter conformance: ${adapter.id}`, () => {
    for (const [name, scenario] of SCENARIOS) test(name, () => scenario(adapter, fixtures));
  });
}
