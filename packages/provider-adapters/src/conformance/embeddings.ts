/**
 * Scenarios every embeddings translator must pass. Each adapter gives a tiny upstream in its
 * own wire format (`answer`: the reply to one of its requests, a vector made from each text)
 * and its documented example answer; the scenarios check that batches are split at the
 * upstream's limit, vectors come back in input order with their usage, and what cannot be sent
 * or parsed is refused.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  AdapterParseError,
  AdapterRequestError,
  type ProviderAdapter,
  type UpstreamHttpRequest,
} from '../adapter.ts';
import { decodeFloat32Base64, encodeOpenAIEmbeddings } from '../embeddings/openai-encoding.ts';
import type { EmbeddingsReply, EmbeddingsRequest, EmbeddingsTarget } from '../model/embeddings.ts';

export interface EmbeddingsFixtures {
  /** Names the run where one adapter serves several model families. */
  readonly label?: string;
  readonly target: EmbeddingsTarget;
  /** The upstream's reply to one request: `vectorOf` of each text, its tokens `tokensOf`. */
  readonly answer: (request: UpstreamHttpRequest) => EmbeddingsReply;
  /** The texts of one request, in order, as the upstream reads them. */
  readonly textsOf: (request: UpstreamHttpRequest) => string[];
  /** Whether token-id inputs are sent (OpenAI's API) rather than refused. */
  readonly takesTokenIds: boolean;
  /** The API's documented example answer to a one-text request, and what it holds. */
  readonly example: { readonly reply: EmbeddingsReply; readonly first: number[]; readonly tokens: number };
}

/** The fake upstream's vector of a text: deterministic, distinct per text. */
export function vectorOf(text: string): number[] {
  return [text.length, text.charCodeAt(0) || 0, 0.5];
}

export function tokensOf(text: string): number {
  return Math.ceil(text.length / 4);
}

function texts(count: number): string[] {
  return Array.from({ length: count }, (_, index) => `text number ${index}`);
}

function request(
  inputs: EmbeddingsRequest['inputs'],
  extra: Partial<EmbeddingsRequest> = {},
): EmbeddingsRequest {
  return { inputs, encoding: 'float', ...extra };
}

export function runEmbeddingsConformance(adapter: ProviderAdapter, fixtures: EmbeddingsFixtures): void {
  const translator = adapter.embeddings;
  const { target } = fixtures;
  const round = (asked: EmbeddingsRequest) => {
    assert.ok(translator);
    const calls = translator.buildRequests(asked, target);
    return { calls, result: translator.parseResponses(calls.map(fixtures.answer), asked) };
  };

  describe(`${adapter.id} embeddings conformance${fixtures.label ? ` (${fixtures.label})` : ''}`, () => {
    test('a batch one over the per-call limit is split in two calls, vectors in input order', () => {
      assert.ok(translator);
      const max = translator.maxInputsPerCall(target.upstreamModel);
      const inputs = texts(max + 1);
      const { calls, result } = round(request(inputs));
      assert.equal(calls.length, 2);
      assert.deepEqual(calls.flatMap(fixtures.textsOf), inputs);
      assert.deepEqual(result.vectors, inputs.map(vectorOf));
      const tokens = inputs.reduce((sum, text) => sum + tokensOf(text), 0);
      assert.deepEqual(result.usage, { meters: { input: tokens }, inputTokens: tokens, estimated: false });
    });

    test('the input tokens of some of the answers (a batch that failed part-way) are theirs alone', () => {
      assert.ok(translator);
      const max = translator.maxInputsPerCall(target.upstreamModel);
      const inputs = texts(2 * max + 1);
      const calls = translator.buildRequests(request(inputs), target);
      const answered = calls.slice(0, -1);
      const tokens = answered.flatMap(fixtures.textsOf).reduce((sum, text) => sum + tokensOf(text), 0);
      assert.equal(translator.reportedInputTokens(answered.map(fixtures.answer)), tokens);
      assert.equal(translator.reportedInputTokens([{ body: 'not json', headers: {} }]), undefined);
    });

    test('the documented example answer parses', () => {
      assert.ok(translator);
      const result = translator.parseResponses([fixtures.example.reply], request(['Hello world']));
      assert.deepEqual(result.vectors[0]?.slice(0, fixtures.example.first.length), fixtures.example.first);
      assert.equal(result.usage.inputTokens, fixtures.example.tokens);
    });

    test('token-id inputs are sent as they are, or refused with a clear message', () => {
      assert.ok(translator);
      const asked = request(['hello', [15339, 1917]]);
      if (!fixtures.takesTokenIds) {
        assert.throws(
          () => translator.buildRequests(asked, target),
          (error: unknown) => {
            assert.ok(error instanceof AdapterRequestError);
            assert.match(error.message, /input\[1\] is an array of token ids; .* embeds text only/);
            return true;
          },
        );
        return;
      }
      const calls = translator.buildRequests(asked, target);
      // One call takes one kind of input: texts, then token arrays.
      assert.deepEqual(
        calls.map((call) => (JSON.parse(call.body) as { input: unknown }).input),
        [['hello'], [[15339, 1917]]],
      );
    });

    test('an answer with the wrong number of vectors, or not of the API, is a parse error', () => {
      assert.ok(translator);
      const asked = request(['one', 'two']);
      const calls = translator.buildRequests(asked, target);
      const replies = calls.map(fixtures.answer);
      assert.throws(
        () => translator.parseResponses(replies, request(['one', 'two', 'three'])),
        AdapterParseError,
      );
      const junk = { body: '{"unexpected":true}', headers: {} };
      assert.throws(() => translator.parseResponses([junk], request(['one'])), AdapterParseError);
      assert.throws(
        () => translator.parseResponses([{ body: 'not json', headers: {} }], asked),
        AdapterParseError,
      );
    });

    test('an empty batch or a bad dimensions value is refused before anything is sent', () => {
      assert.ok(translator);
      assert.throws(() => translator.buildRequests(request([]), target), /at least one/);
      assert.throws(
        () => translator.buildRequests(request(['x'], { dimensions: 0 }), target),
        AdapterRequestError,
      );
      assert.throws(
        () => translator.buildRequests(request(['x'], { dimensions: 1.5 }), target),
        AdapterRequestError,
      );
    });

    test('a rate limit is mapped by the adapter as for chat', () => {
      const failure = adapter.mapError({ status: 429, headers: { 'retry-after': '3' }, body: '{}' });
      assert.equal(failure.kind, 'rate_limited');
      assert.equal(failure.status, 429);
    });

    test('the OpenAI answer carries the vectors as floats or as base64 float32', () => {
      const inputs = ['first', 'second'];
      const { result } = round(request(inputs));
      const floats = JSON.parse(encodeOpenAIEmbeddings(result, { model: 'm', encoding: 'float' })) as {
        data: { index: number; embedding: number[] }[];
        usage: { prompt_tokens: number; total_tokens: number };
      };
      assert.deepEqual(
        floats.data.map((item) => item.embedding),
        inputs.map(vectorOf),
      );
      assert.equal(floats.usage.prompt_tokens, result.usage.inputTokens);
      const packed = JSON.parse(encodeOpenAIEmbeddings(result, { model: 'm', encoding: 'base64' })) as {
        data: { embedding: string }[];
      };
      assert.deepEqual(
        packed.data.map((item) => decodeFloat32Base64(item.embedding)),
        inputs.map((text) => Array.from(Float32Array.from(vectorOf(text)))),
      );
    });
  });
}
