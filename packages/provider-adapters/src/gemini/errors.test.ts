/**
 * Where each Google failure may be retried, on the Gemini API and on Vertex AI (the same
 * envelope): error responses and error chunks inside a stream.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ProviderAdapter, UpstreamErrorResponse } from '../adapter.ts';
import { collectStream } from '../conformance/collect.ts';
import type { FailureKind, RetryScope } from '../model/response.ts';
import { errorFixtures as vertexFixtures } from '../vertex-gemini/fixtures.ts';
import { vertexGeminiAdapter } from '../vertex-gemini/index.ts';
import { errorFixtures } from './fixtures.ts';
import { geminiAdapter } from './index.ts';

function google(code: number, status?: string): UpstreamErrorResponse {
  return { status: code, headers: {}, body: JSON.stringify({ error: { code, message: 'x', status } }) };
}

type Row = readonly [string, UpstreamErrorResponse, FailureKind, number, RetryScope | undefined];

const ENVELOPES: readonly Row[] = [
  ['429 RESOURCE_EXHAUSTED', google(429, 'RESOURCE_EXHAUSTED'), 'rate_limited', 429, 'anywhere'],
  ['503 UNAVAILABLE', google(503, 'UNAVAILABLE'), 'server', 502, 'anywhere'],
  ['500 INTERNAL', google(500, 'INTERNAL'), 'server', 502, 'elsewhere'],
  ['500 UNKNOWN', google(500, 'UNKNOWN'), 'server', 502, 'elsewhere'],
  ['502 without a status', google(502), 'server', 502, 'elsewhere'],
  ['504 DEADLINE_EXCEEDED', google(504, 'DEADLINE_EXCEEDED'), 'timeout', 504, 'elsewhere'],
  ['408', google(408), 'timeout', 504, 'elsewhere'],
  ['400 INVALID_ARGUMENT', google(400, 'INVALID_ARGUMENT'), 'client', 400, undefined],
  ['400 FAILED_PRECONDITION', google(400, 'FAILED_PRECONDITION'), 'client', 400, undefined],
  ['409 ABORTED', google(409, 'ABORTED'), 'client', 400, undefined],
  ['401 UNAUTHENTICATED', google(401, 'UNAUTHENTICATED'), 'auth', 502, undefined],
  ['403 PERMISSION_DENIED', google(403, 'PERMISSION_DENIED'), 'auth', 502, undefined],
  ['404 NOT_FOUND', google(404, 'NOT_FOUND'), 'server', 502, undefined],
];

const FIXTURES: ReadonlyArray<readonly [ProviderAdapter, readonly Row[]]> = [
  [
    geminiAdapter,
    [
      ['fixture rateLimited', errorFixtures.rateLimited, 'rate_limited', 429, 'anywhere'],
      ['fixture unavailable', errorFixtures.unavailable, 'server', 502, 'anywhere'],
      ['fixture serverError', errorFixtures.serverError, 'server', 502, 'elsewhere'],
      ['fixture timeout', errorFixtures.timeout, 'timeout', 504, 'elsewhere'],
      ['fixture bad API key', errorFixtures.unauthorized, 'auth', 502, undefined],
      ['fixture notFound', errorFixtures.notFound, 'server', 502, undefined],
    ],
  ],
  [
    vertexGeminiAdapter,
    [
      ['fixture rateLimited', vertexFixtures.rateLimited, 'rate_limited', 429, 'anywhere'],
      ['fixture unavailable', vertexFixtures.unavailable, 'server', 502, 'anywhere'],
      ['fixture serverError', vertexFixtures.serverError, 'server', 502, 'elsewhere'],
      ['fixture unauthorized', vertexFixtures.unauthorized, 'auth', 502, undefined],
      ['fixture forbidden', vertexFixtures.forbidden, 'auth', 502, undefined],
      ['fixture badRequestWithProject', vertexFixtures.badRequestWithProject, 'client', 400, undefined],
    ],
  ],
];

for (const [adapter, fixtures] of FIXTURES) {
  describe(`${adapter.id} retry scopes`, () => {
    for (const [name, response, kind, status, retry] of [...ENVELOPES, ...fixtures]) {
      test(`${name}: ${kind} ${status}, retry ${retry ?? 'never'}`, () => {
        const failure = adapter.mapError(response);
        assert.deepEqual([failure.kind, failure.status, failure.retry], [kind, status, retry]);
      });
    }
  });
}

describe('gemini stream error chunks', () => {
  const context = { clientApi: 'openai-chat' } as const;
  const sse = (...chunks: object[]) =>
    new TextEncoder().encode(chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join(''));
  const text = { candidates: [{ content: { parts: [{ text: 'The' }] } }] };
  const CHUNKS: ReadonlyArray<readonly [string, object, RetryScope | undefined]> = [
    ['RESOURCE_EXHAUSTED', { code: 429, status: 'RESOURCE_EXHAUSTED', message: 'x' }, 'anywhere'],
    ['UNAVAILABLE', { code: 503, status: 'UNAVAILABLE', message: 'x' }, 'anywhere'],
    ['INTERNAL', { code: 500, status: 'INTERNAL', message: 'x' }, 'elsewhere'],
    ['no code', { message: 'x' }, 'elsewhere'],
    ['INVALID_ARGUMENT', { code: 400, status: 'INVALID_ARGUMENT', message: 'x' }, undefined],
  ];

  for (const adapter of [geminiAdapter, vertexGeminiAdapter]) {
    for (const [name, error, retry] of CHUNKS) {
      test(`${adapter.id} ${name}: retry ${retry ?? 'never'}`, () => {
        const out = collectStream(adapter.createStreamTranslator(context), sse(text, { error }));
        assert.deepEqual([out.errors.length, out.errors[0]?.retry], [1, retry]);
      });
    }

    test(`${adapter.id}: a stream that ends before its finish reason, or is garbled: elsewhere`, () => {
      const cut = collectStream(adapter.createStreamTranslator(context), sse(text));
      const garbled = collectStream(
        adapter.createStreamTranslator(context),
        new TextEncoder().encode('data: {x\n\n'),
      );
      assert.deepEqual([cut.errors[0]?.retry, garbled.errors[0]?.retry], ['elsewhere', 'elsewhere']);
    });
  }
});
