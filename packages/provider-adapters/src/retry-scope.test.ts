import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  retryForOpenAIErrorCode,
  retryForSdkStatus,
  retryForStatus,
  withRetry,
  withShouldRetry,
} from './retry-scope.ts';

test('by status: turned away -> anywhere; 408 and 5xx -> elsewhere; other 4xx -> never', () => {
  const statuses = [429, 503, 529, 408, 500, 502, 504, 599, 400, 401, 403, 404, 409, 413, 422];
  assert.deepEqual(
    statuses.map((status) => retryForStatus(status)),
    [
      ...['anywhere', 'anywhere', 'anywhere'],
      ...['elsewhere', 'elsewhere', 'elsewhere', 'elsewhere', 'elsewhere'],
      ...Array<undefined>(7).fill(undefined),
    ],
  );
});

test("OpenAI's and Anthropic's SDKs add 409 (a lock timeout) to the same host", () => {
  assert.equal(retryForSdkStatus(409), 'anywhere');
  assert.equal(retryForSdkStatus(500), 'elsewhere');
  assert.equal(retryForSdkStatus(400), undefined);
});

test('x-should-retry moves a retryable failure, and only a retryable one', () => {
  const headers = (value: string | string[]) => ({ 'x-should-retry': value });
  assert.equal(withShouldRetry(headers('false'), 'anywhere'), 'elsewhere');
  assert.equal(withShouldRetry(headers('true'), 'elsewhere'), 'anywhere');
  assert.equal(withShouldRetry(headers(['true']), 'elsewhere'), 'anywhere');
  assert.equal(withShouldRetry(headers('true'), undefined), undefined);
  assert.equal(withShouldRetry(headers('maybe'), 'elsewhere'), 'elsewhere');
  assert.equal(withShouldRetry({}, 'anywhere'), 'anywhere');
});

test('OpenAI error codes after HTTP 200', () => {
  const codes = [null, undefined, 'server_error', 'rate_limit_exceeded', 'invalid_prompt', 'content_filter'];
  assert.deepEqual(codes.map(retryForOpenAIErrorCode), [
    'elsewhere',
    'elsewhere',
    'elsewhere',
    'anywhere',
    undefined,
    undefined,
  ]);
});

test('withRetry leaves a failure without a scope as it was', () => {
  const failure = { kind: 'client', status: 400, message: 'x' } as const;
  assert.equal(withRetry(failure, undefined), failure);
  assert.deepEqual(withRetry(failure, 'elsewhere'), { ...failure, retry: 'elsewhere' });
});
