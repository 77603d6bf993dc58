/** Where each Anthropic failure may be retried, as an error response and as a stream event. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { UpstreamErrorResponse } from '../adapter.ts';
import { collectStream } from '../conformance/collect.ts';
import type { FailureKind, RetryScope } from '../model/response.ts';
import { errorFixtures, fixtureText } from './fixtures.ts';
import { anthropicAdapter as adapter } from './index.ts';

function answer(status: number, type?: string, headers: Record<string, string> = {}): UpstreamErrorResponse {
  const body = type === undefined ? '' : JSON.stringify({ type: 'error', error: { type, message: 'x' } });
  return { status, headers, body };
}

type Row = readonly [string, UpstreamErrorResponse, FailureKind, number, RetryScope | undefined];

const RESPONSES: readonly Row[] = [
  ['429 rate_limit_error', errorFixtures.rateLimited, 'rate_limited', 429, 'anywhere'],
  ['529 overloaded_error', errorFixtures.overloaded, 'server', 503, 'anywhere'],
  ['overloaded_error under another status', answer(500, 'overloaded_error'), 'server', 503, 'anywhere'],
  ['503 without a body', answer(503), 'server', 502, 'anywhere'],
  ['409 (the SDK resends its lock timeouts)', answer(409), 'server', 502, 'anywhere'],
  ['500 api_error', errorFixtures.serverError, 'server', 502, 'elsewhere'],
  ['api_error under a 503', answer(503, 'api_error'), 'server', 502, 'elsewhere'],
  ['502 from a proxy', answer(502), 'server', 502, 'elsewhere'],
  ['504', errorFixtures.timeout, 'timeout', 504, 'elsewhere'],
  ['408', answer(408), 'timeout', 504, 'elsewhere'],
  ['400 invalid_request_error', errorFixtures.badRequest, 'client', 400, undefined],
  ['413 request_too_large', errorFixtures.tooLarge, 'client', 400, undefined],
  ['400 content filter', errorFixtures.contentFilter, 'client', 400, undefined],
  ['401 authentication_error', errorFixtures.unauthorized, 'auth', 502, undefined],
  ['403 permission_error', errorFixtures.forbidden, 'auth', 502, undefined],
  ['404 not_found_error', errorFixtures.notFound, 'server', 502, undefined],
  ['402 billing_error', answer(402, 'billing_error'), 'server', 502, undefined],
];

describe('anthropic retry scopes', () => {
  for (const [name, response, kind, status, retry] of RESPONSES) {
    test(`${name}: ${kind} ${status}, retry ${retry ?? 'never'}`, () => {
      const failure = adapter.mapError(response);
      assert.deepEqual([failure.kind, failure.status, failure.retry], [kind, status, retry]);
    });
  }

  test('x-should-retry is the provider’s word on asking it again, never on client errors', () => {
    const scope = (response: UpstreamErrorResponse) => adapter.mapError(response).retry;
    assert.equal(scope(answer(529, 'overloaded_error', { 'x-should-retry': 'false' })), 'elsewhere');
    assert.equal(scope(answer(500, 'api_error', { 'x-should-retry': 'true' })), 'anywhere');
    assert.equal(scope(answer(400, 'invalid_request_error', { 'x-should-retry': 'true' })), undefined);
    assert.equal(scope(answer(401, 'authentication_error', { 'x-should-retry': 'true' })), undefined);
  });
});

describe('anthropic stream error events', () => {
  const context = { clientApi: 'openai-chat' } as const;
  const started = fixtureText('text-stream.fixture.sse').split('event: content_block_stop')[0] ?? '';

  function streamed(error: object) {
    const sse = `${started}event: error\ndata: ${JSON.stringify({ type: 'error', error })}\n\n`;
    const out = collectStream(adapter.createStreamTranslator(context), new TextEncoder().encode(sse));
    assert.equal(out.errors.length, 1);
    return out.errors[0];
  }

  const EVENTS: ReadonlyArray<readonly [string, object, number, RetryScope | undefined]> = [
    ['overloaded_error', { type: 'overloaded_error', message: 'Overloaded' }, 503, 'anywhere'],
    ['rate_limit_error', { type: 'rate_limit_error', message: 'x' }, 502, 'anywhere'],
    ['api_error', { type: 'api_error', message: 'x' }, 502, 'elsewhere'],
    ['an unknown type', { type: 'brand_new_error', message: 'x' }, 502, 'elsewhere'],
    ['no type', { message: 'x' }, 502, 'elsewhere'],
    ['invalid_request_error', { type: 'invalid_request_error', message: 'x' }, 502, undefined],
  ];
  for (const [name, error, status, retry] of EVENTS) {
    test(`${name}: ${status}, retry ${retry ?? 'never'}`, () => {
      const failure = streamed(error);
      assert.deepEqual([failure?.kind, failure?.status, failure?.retry], ['server', status, retry]);
    });
  }

  test('a stream cut short may have been worked on: elsewhere', () => {
    const out = collectStream(adapter.createStreamTranslator(context), new TextEncoder().encode(started));
    assert.deepEqual([out.errors[0]?.status, out.errors[0]?.retry], [502, 'elsewhere']);
  });
});
