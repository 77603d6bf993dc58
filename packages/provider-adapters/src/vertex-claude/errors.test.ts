/** Where each Vertex Claude failure may be retried: Google's envelope (Vertex) and Anthropic's (the model). */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { UpstreamErrorResponse } from '../adapter.ts';
import { collectStream } from '../conformance/collect.ts';
import type { FailureKind, RetryScope } from '../model/response.ts';
import { errorFixtures, fixtureBytes } from './fixtures.ts';
import { vertexClaudeAdapter as adapter } from './index.ts';

function google(code: number, status: string): UpstreamErrorResponse {
  return { status: code, headers: {}, body: JSON.stringify({ error: { code, message: 'x', status } }) };
}

function anthropic(status: number, type: string): UpstreamErrorResponse {
  return { status, headers: {}, body: JSON.stringify({ type: 'error', error: { type, message: 'x' } }) };
}

const RESPONSES: ReadonlyArray<
  readonly [string, UpstreamErrorResponse, FailureKind, number, RetryScope | undefined]
> = [
  ['Google RESOURCE_EXHAUSTED', errorFixtures.rateLimited, 'rate_limited', 429, 'anywhere'],
  ['Google UNAVAILABLE', google(503, 'UNAVAILABLE'), 'server', 503, 'anywhere'],
  ['Anthropic 529 overloaded_error', errorFixtures.overloaded, 'server', 503, 'anywhere'],
  ['Google INTERNAL', errorFixtures.serverError, 'server', 502, 'elsewhere'],
  ['Anthropic 500 api_error', anthropic(500, 'api_error'), 'server', 502, 'elsewhere'],
  ['Google DEADLINE_EXCEEDED', errorFixtures.timeout, 'timeout', 504, 'elsewhere'],
  ['Google INVALID_ARGUMENT', errorFixtures.badRequestGoogle, 'client', 400, undefined],
  ['Anthropic invalid_request_error', errorFixtures.badRequest, 'client', 400, undefined],
  ['Google UNAUTHENTICATED', errorFixtures.unauthorized, 'auth', 502, undefined],
  ['Google PERMISSION_DENIED', errorFixtures.forbidden, 'auth', 502, undefined],
  ['Google NOT_FOUND', errorFixtures.notFound, 'server', 502, undefined],
];

describe('vertex-claude retry scopes', () => {
  for (const [name, response, kind, status, retry] of RESPONSES) {
    test(`${name}: ${kind} ${status}, retry ${retry ?? 'never'}`, () => {
      const failure = adapter.mapError(response);
      assert.deepEqual([failure.kind, failure.status, failure.retry], [kind, status, retry]);
    });
  }

  test('an api_error event mid-stream: elsewhere', () => {
    const out = collectStream(
      adapter.createStreamTranslator({ clientApi: 'openai-chat' }),
      fixtureBytes('mid-stream-error.fixture.sse'),
    );
    assert.deepEqual([out.errors[0]?.status, out.errors[0]?.retry], [502, 'elsewhere']);
  });
});
