/**
 * Scenarios every adapter must pass, whatever its wire format. Each adapter records the same
 * canonical exchanges in its own format (fixtures, from its API's documentation) and runs
 * `runConformance` over them: the internal model that comes out must be the same.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  AdapterRequestError,
  type BuildInput,
  type ProviderAdapter,
  type ResponseContext,
  type UpstreamErrorResponse,
} from '../adapter.ts';
import { ADAPTER_TRAITS } from '../endpoints.ts';
import type { EffortExpression } from '../model/profile.ts';
import type { WireApi } from '../model/request.ts';
import type { RetryScope } from '../model/response.ts';
import type { Usage } from '../model/usage.ts';
import { collectStream, responseText, responseToolCalls } from './collect.ts';
import { CANONICAL, canonicalBuildInput } from './canonical.ts';

export { CANONICAL, canonicalBuildInput };

export interface ConformanceFixtures {
  readonly textCompletion: string;
  /** Two parallel calls: get_weather {city: Paris} and get_time {city: Paris}. */
  readonly toolCallCompletion: string;
  readonly textStream: Uint8Array;
  readonly toolCallStream: Uint8Array;
  /** Two text pieces ("The", " capital"), then an upstream error event. */
  readonly midStreamError: Uint8Array;
  /** Usage of the text and tool exchanges in the internal convention (the API decides what it reports). */
  readonly expected: {
    readonly textUsage: Usage;
    readonly toolUsage: Usage;
    readonly midStreamStatus?: number;
    /** Where the mid-stream failure may be retried: by default a server fault, so elsewhere. */
    readonly midStreamRetry?: RetryScope;
  };
  readonly errors: {
    readonly rateLimited: UpstreamErrorResponse;
    readonly badRequest: UpstreamErrorResponse;
    readonly unauthorized: UpstreamErrorResponse;
    readonly serverError: UpstreamErrorResponse;
    readonly timeout: UpstreamErrorResponse;
  };
}

/** Text that must never reach a client: hosts, addresses, keys, organisation ids. */
const LEAKS = [/internal/i, /\.com\b/i, /\bsk-/, /\b\d{1,3}(?:\.\d{1,3}){3}\b/, /\borg-[A-Za-z0-9]/, /AKIA/];

export function assertNoLeak(message: string): void {
  for (const pattern of LEAKS) assert.doesNotMatch(message, pattern);
}

/** Characters in a row a message may share with an upstream body by coincidence (" credentials."). */
const COPIED_RUN = 16;

/**
 * Rate limits and the provider's faults are told in the adapter's own words: no run of
 * COPIED_RUN characters of the upstream's text (which may echo the gateway's credentials).
 */
function assertOwnWords(message: string, upstream: string): void {
  for (let at = 0; at + COPIED_RUN <= message.length; at++) {
    const run = message.slice(at, at + COPIED_RUN);
    assert.ok(!upstream.includes(run), `"${message}" copies "${run}" from the upstream`);
  }
}

/** A client API other than the adapter's own, so the output is the internal model, not native. */
function foreignApi(adapter: ProviderAdapter): ResponseContext {
  // Not Responses: the OpenAI and Azure adapters also speak it, so it would be native there.
  const api: WireApi = adapter.wireApi === 'anthropic-messages' ? 'openai-chat' : 'anthropic-messages';
  return { clientApi: api };
}

/** Every split point for short inputs; a spread of them for long ones. */
function splitPoints(length: number): number[][] {
  const step = Math.max(1, Math.floor(length / 150));
  const out: number[][] = [[]];
  for (let i = 1; i < length; i += step) out.push([i]);
  out.push(Array.from({ length: length - 1 }, (_, i) => i + 1));
  return out;
}

function textCompletion(adapter: ProviderAdapter, fixtures: ConformanceFixtures): void {
  const { response } = adapter.parseResponse(fixtures.textCompletion, foreignApi(adapter));
  assert.equal(responseText(response), CANONICAL.text);
  assert.equal(response.finishReason, 'stop');
  assert.deepEqual(response.usage, fixtures.expected.textUsage);
  assert.ok(response.id);
}

function toolCallCompletion(adapter: ProviderAdapter, fixtures: ConformanceFixtures): void {
  const { response } = adapter.parseResponse(fixtures.toolCallCompletion, foreignApi(adapter));
  const calls = responseToolCalls(response);
  assert.deepEqual(
    calls.map((call) => [call.name, JSON.parse(call.arguments)]),
    CANONICAL.tools.map((tool) => [tool.name, tool.arguments]),
  );
  assert.ok(calls.every((call) => call.id !== ''));
  assert.equal(response.finishReason, 'tool_calls');
  assert.deepEqual(response.usage, fixtures.expected.toolUsage);
}

function textStream(adapter: ProviderAdapter, fixtures: ConformanceFixtures): void {
  for (const splits of splitPoints(fixtures.textStream.length)) {
    const out = collectStream(
      adapter.createStreamTranslator(foreignApi(adapter)),
      fixtures.textStream,
      splits,
    );
    assert.equal(out.text, CANONICAL.text);
    assert.deepEqual(out.finishReasons, ['stop']);
    assert.deepEqual(out.usage, fixtures.expected.textUsage);
    assert.deepEqual(out.errors, []);
    assert.equal(out.native, 0);
    assert.ok(out.done);
  }
}

function toolCallStream(adapter: ProviderAdapter, fixtures: ConformanceFixtures): void {
  for (const splits of splitPoints(fixtures.toolCallStream.length)) {
    const out = collectStream(
      adapter.createStreamTranslator(foreignApi(adapter)),
      fixtures.toolCallStream,
      splits,
    );
    assert.deepEqual(
      out.toolCalls.map((call) => [call.name, JSON.parse(call.arguments), call.starts]),
      CANONICAL.tools.map((tool) => [tool.name, tool.arguments, 1]),
    );
    assert.ok(out.toolCalls.every((call) => call.id !== ''));
    assert.deepEqual(out.finishReasons, ['tool_calls']);
    assert.deepEqual(out.usage, fixtures.expected.toolUsage);
    assert.ok(out.done);
  }
}

function midStreamError(adapter: ProviderAdapter, fixtures: ConformanceFixtures): void {
  const out = collectStream(adapter.createStreamTranslator(foreignApi(adapter)), fixtures.midStreamError);
  assert.equal(out.text, 'The capital');
  const last = out.events.at(-1);
  assert.ok(last?.type === 'error', `last event ${last?.type}`);
  assert.equal(last.failure.status, fixtures.expected.midStreamStatus ?? 502);
  assert.equal(last.failure.retry, fixtures.expected.midStreamRetry ?? 'elsewhere');
  assertNoLeak(last.failure.message);
  assertOwnWords(last.failure.message, new TextDecoder().decode(fixtures.midStreamError));
  assert.equal(out.errors.length, 1);
}

function meteringSameStreamedOrNot(adapter: ProviderAdapter, fixtures: ConformanceFixtures): void {
  const context = foreignApi(adapter);
  for (const [body, stream] of [
    [fixtures.textCompletion, fixtures.textStream],
    [fixtures.toolCallCompletion, fixtures.toolCallStream],
  ] as const) {
    const json = adapter.parseResponse(body, context).response.usage;
    const streamed = collectStream(adapter.createStreamTranslator(context), stream).usage;
    assert.deepEqual(streamed, json);
  }
}

function errorMapping(adapter: ProviderAdapter, fixtures: ConformanceFixtures): void {
  const limited = adapter.mapError(fixtures.errors.rateLimited);
  assert.deepEqual(
    [limited.kind, limited.status, limited.retryAfter, limited.retry],
    ['rate_limited', 429, '7', 'anywhere'],
  );
  const bad = adapter.mapError(fixtures.errors.badRequest);
  assert.deepEqual([bad.kind, bad.status, bad.retry], ['client', 400, undefined]);
  assert.match(bad.message, /temperature/);
  const auth = adapter.mapError(fixtures.errors.unauthorized);
  assert.deepEqual([auth.kind, auth.status, auth.retry], ['auth', 502, undefined]);
  const server = adapter.mapError(fixtures.errors.serverError);
  assert.deepEqual([server.kind, server.status, server.retry], ['server', 502, 'elsewhere']);
  const timeout = adapter.mapError(fixtures.errors.timeout);
  assert.deepEqual([timeout.kind, timeout.status, timeout.retry], ['timeout', 504, 'elsewhere']);
  for (const failure of [limited, bad, auth, server, timeout]) assertNoLeak(failure.message);
  const { rateLimited, unauthorized, serverError, timeout: late } = fixtures.errors;
  assertOwnWords(limited.message, rateLimited.body);
  assertOwnWords(auth.message, unauthorized.body);
  assertOwnWords(server.message, serverError.body);
  assertOwnWords(timeout.message, late.body);
}

function requestShape(adapter: ProviderAdapter): void {
  for (const stream of [false, true]) {
    const input: BuildInput = canonicalBuildInput(stream);
    const built = adapter.buildRequest(input);
    assert.ok(built.url.startsWith(input.endpoint.baseUrl), built.url);
    assert.doesNotThrow(() => JSON.parse(built.body));
    const credentialHeaders = Object.keys(built.headers).filter((name) =>
      /^(authorization|x-api-key|api-key|x-goog-api-key|x-amz-.*)$/i.test(name),
    );
    assert.deepEqual(credentialHeaders, [], 'credentials are the signer’s, never the adapter’s');
    assert.ok(!built.body.includes(CANONICAL.secretLookalike), 'nothing of the gateway leaks upstream');
  }
}

/** A user image and a tool result's text reach the upstream body, whatever its shape. */
function turnsReachTheBody(adapter: ProviderAdapter): void {
  const input = canonicalBuildInput(false);
  const image = {
    type: 'image' as const,
    source: { kind: 'base64' as const, mediaType: 'image/png', data: 'iVBORw0KGgoSIMULATED' },
  };
  const [first, ...rest] = input.request.turns;
  const turns = first ? [{ ...first, content: [...first.content, image] }, ...rest] : rest;
  const body = adapter.buildRequest({ ...input, request: { ...input.request, turns } }).body;
  assert.ok(body.includes('iVBORw0KGgoSIMULATED'), 'the image is sent');
  assert.ok(body.includes('sunny'), 'the tool result is sent');
  assert.ok(body.includes('You are terse.'), 'the system prompt is sent');
}

/** One expression of each kind, as the catalog's profiles hold them. */
const EXPRESSIONS: Readonly<Record<EffortExpression['kind'], EffortExpression>> = {
  omit: { kind: 'omit' },
  openai: { kind: 'openai', value: 'high' },
  'anthropic-budget': { kind: 'anthropic-budget', budgetTokens: 4096 },
  'anthropic-adaptive': { kind: 'anthropic-adaptive', effort: 'high' },
  'gemini-budget': { kind: 'gemini-budget', budgetTokens: 8192 },
  'gemini-level': { kind: 'gemini-level', level: 'HIGH' },
};

/** Each effort kind the API takes changes what is sent; `omit` sends none of them. */
function effortsAreExpressed(adapter: ProviderAdapter): void {
  const input = canonicalBuildInput(false);
  const omitted = adapter.buildRequest(input).body;
  for (const kind of ADAPTER_TRAITS[adapter.id].effortKinds) {
    if (kind === 'omit') continue;
    const body = adapter.buildRequest({ ...input, reasoning: EXPRESSIONS[kind] }).body;
    assert.notEqual(body, omitted, `effort of kind ${kind} is sent`);
  }
}

/**
 * Web search: the profile's tool is sent where the API has one, refused where it has none.
 * OpenAI's Chat Completions API expresses it as `web_search_options` (its search models).
 */
function webSearch(adapter: ProviderAdapter): void {
  const input = canonicalBuildInput(false);
  const tools = [...input.request.tools, { type: 'web_search' as const }];
  const request = { ...input.request, tools };
  if (adapter.wireApi === 'openai-chat') {
    assert.ok(adapter.buildRequest({ ...input, request }).body.includes('"web_search_options"'));
    return;
  }
  if (!ADAPTER_TRAITS[adapter.id].webSearch) {
    assert.throws(() => adapter.buildRequest({ ...input, request }), AdapterRequestError);
    return;
  }
  const tool = adapter.id.includes('gemini') ? 'googleSearch' : 'web_search_20250305';
  const offer = { ...input.offer, webSearchTool: tool };
  assert.ok(adapter.buildRequest({ ...input, offer, request }).body.includes(tool), `${tool} is sent`);
  assert.throws(
    () => adapter.buildRequest({ ...input, request }),
    AdapterRequestError,
    'no tool in the profile',
  );
}

type Scenario = (adapter: ProviderAdapter, fixtures: ConformanceFixtures) => void;

const SCENARIOS: ReadonlyArray<readonly [string, Scenario]> = [
  ['request: absolute URL on the endpoint, JSON body, no credentials', requestShape],
  ['request: system prompt, images and tool results reach the upstream body', turnsReachTheBody],
  ['request: every effort kind the API takes is expressed upstream', effortsAreExpressed],
  ['request: web search with the profile’s tool, or refused where the API has none', webSearch],
  ['text completion: content, finish reason, usage', textCompletion],
  ['tool-call completion: two parallel function calls with JSON arguments', toolCallCompletion],
  ['text stream, cut at any byte: same text, usage and end', textStream],
  ['tool-call stream: each call starts once, arguments reassemble', toolCallStream],
  ['mid-stream upstream error: content so far, then one safe error event', midStreamError],
  ['metering is the same streamed or not', meteringSameStreamedOrNot],
  [
    'errors: 429 keeps its status and Retry-After; client errors 400; refused credentials and provider faults 502; timeouts 504; where each may be retried',
    errorMapping,
  ],
];

export function runConformance(adapter: ProviderAdapter, fixtures: ConformanceFixtures): void {
  describe(`adapter conformance: ${adapter.id}`, () => {
    for (const [name, scenario] of SCENARIOS) test(name, () => scenario(adapter, fixtures));
  });
}
