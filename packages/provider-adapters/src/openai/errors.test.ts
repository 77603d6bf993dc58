/**
 * Where each failure of an OpenAI-API upstream (OpenAI, Azure, OpenAI-compatible servers) may be
 * retried: error responses, Chat Completions stream errors and Responses stream failures.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ProviderAdapter, UpstreamErrorResponse } from '../adapter.ts';
import { azureOpenAIAdapter } from '../azure-openai/index.ts';
import { collectStream } from '../conformance/collect.ts';
import type { FailureKind, RetryScope } from '../model/response.ts';
import { openAICompatibleAdapter } from '../openai-compatible/index.ts';
import { errorFixtures, fixtureText } from './fixtures.ts';
import { openAIAdapter } from './index.ts';

const ADAPTERS: readonly ProviderAdapter[] = [openAIAdapter, azureOpenAIAdapter, openAICompatibleAdapter];

function answer(
  status: number,
  error: object = {},
  headers: Record<string, string> = {},
): UpstreamErrorResponse {
  return { status, headers, body: JSON.stringify({ error: { message: 'x', ...error } }) };
}

type Row = readonly [string, UpstreamErrorResponse, FailureKind, number, RetryScope | undefined];

const RESPONSES: readonly Row[] = [
  ['429', errorFixtures.rateLimited, 'rate_limited', 429, 'anywhere'],
  ['429 insufficient_quota', answer(429, { code: 'insufficient_quota' }), 'rate_limited', 429, 'anywhere'],
  ['503 HTML page', errorFixtures.overloadedHtml, 'server', 503, 'anywhere'],
  ['409 (the SDK resends its lock timeouts)', answer(409), 'server', 502, 'anywhere'],
  ['500 server_error', errorFixtures.serverError, 'server', 502, 'elsewhere'],
  ['502', answer(502), 'server', 502, 'elsewhere'],
  ['504', answer(504), 'server', 502, 'elsewhere'],
  ['408', errorFixtures.timeout, 'timeout', 504, 'elsewhere'],
  ['400', errorFixtures.badRequest, 'client', 400, undefined],
  ['413', answer(413), 'client', 400, undefined],
  ['422', answer(422), 'client', 400, undefined],
  ['400 content_filter', answer(400, { code: 'content_filter' }), 'client', 400, undefined],
  ['401', errorFixtures.unauthorized, 'auth', 502, undefined],
  ['403', answer(403), 'auth', 502, undefined],
  ['404 unknown model or deployment', errorFixtures.notFound, 'server', 502, undefined],
];

for (const adapter of ADAPTERS) {
  describe(`${adapter.id} retry scopes`, () => {
    for (const [name, response, kind, status, retry] of RESPONSES) {
      test(`${name}: ${kind} ${status}, retry ${retry ?? 'never'}`, () => {
        const failure = adapter.mapError(response);
        assert.deepEqual([failure.kind, failure.status, failure.retry], [kind, status, retry]);
      });
    }
  });
}

describe('openai x-should-retry', () => {
  test('the provider’s word on asking it again, never on client errors', () => {
    const scope = (status: number, value: string) =>
      openAIAdapter.mapError(answer(status, {}, { 'x-should-retry': value })).retry;
    assert.equal(scope(429, 'false'), 'elsewhere');
    assert.equal(scope(500, 'true'), 'anywhere');
    assert.equal(scope(500, 'TRUE '), 'anywhere');
    assert.equal(scope(400, 'true'), undefined);
    assert.equal(scope(401, 'true'), undefined);
  });
});

const STREAM_ERRORS: ReadonlyArray<readonly [string, object, RetryScope | undefined]> = [
  ['server_error', { type: 'server_error', code: null }, 'elsewhere'],
  ['no code', {}, 'elsewhere'],
  ['server_is_overloaded', { code: 'server_is_overloaded' }, 'anywhere'],
  ['slow_down', { code: 'slow_down' }, 'anywhere'],
  ['rate_limit_exceeded', { code: 'rate_limit_exceeded' }, 'anywhere'],
  ['invalid_prompt', { code: 'invalid_prompt' }, undefined],
  ['image_content_policy_violation', { code: 'image_content_policy_violation' }, undefined],
];

describe('openai chat stream errors', () => {
  const context = { clientApi: 'anthropic-messages' } as const;
  const started = fixtureText('text-stream.fixture.sse').split('\n\n').slice(0, 2).join('\n\n');

  for (const [name, error, retry] of STREAM_ERRORS) {
    test(`${name}: retry ${retry ?? 'never'}`, () => {
      const sse = `${started}\n\ndata: ${JSON.stringify({ error: { message: 'x', ...error } })}\n\n`;
      const out = collectStream(openAIAdapter.createStreamTranslator(context), new TextEncoder().encode(sse));
      assert.deepEqual([out.errors.length, out.errors[0]?.status, out.errors[0]?.retry], [1, 502, retry]);
    });
  }

  test('a malformed event: elsewhere', () => {
    const out = collectStream(
      openAIAdapter.createStreamTranslator(context),
      new TextEncoder().encode(`${started}\n\ndata: {not json\n\n`),
    );
    assert.deepEqual([out.errors[0]?.status, out.errors[0]?.retry], [502, 'elsewhere']);
  });
});

describe('openai Responses stream failures', () => {
  const context = { clientApi: 'openai-responses' } as const;

  for (const [name, error, retry] of STREAM_ERRORS) {
    test(`response.failed ${name}: retry ${retry ?? 'never'}`, () => {
      const failed = {
        type: 'response.failed',
        response: { status: 'failed', error: { message: 'x', ...error } },
      };
      const sse = `event: response.failed\ndata: ${JSON.stringify(failed)}\n\n`;
      const out = collectStream(openAIAdapter.createStreamTranslator(context), new TextEncoder().encode(sse));
      assert.deepEqual([out.errors.length, out.errors[0]?.retry], [1, retry]);
    });
  }

  test('an overload keeps its 503; a stream that never started: elsewhere', () => {
    const sse = `event: error\ndata: ${JSON.stringify({ type: 'error', code: 'server_is_overloaded', message: 'x' })}\n\n`;
    const overloaded = collectStream(
      openAIAdapter.createStreamTranslator(context),
      new TextEncoder().encode(sse),
    );
    assert.deepEqual([overloaded.errors[0]?.status, overloaded.errors[0]?.retry], [503, 'anywhere']);
    const empty = collectStream(openAIAdapter.createStreamTranslator(context), new Uint8Array());
    assert.deepEqual([empty.errors[0]?.status, empty.errors[0]?.retry], [502, 'elsewhere']);
  });
});
