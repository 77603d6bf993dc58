import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { UpstreamFailure } from '@app/provider-adapters';
import { afterFailover, nextStep, type RetryState, retryDelayMs } from './retry-policy.ts';

const CONFIG = { failoverAttempts: 3, sameProviderRetries: 2, retryMaxWaitMs: 4_000 };
const STATE: RetryState = {
  automatic: true,
  providersTried: 1,
  sameRetries: 0,
  fallbackLeft: false,
  remainingMs: 60_000,
};
const throttled: UpstreamFailure = { kind: 'rate_limited', status: 429, message: 'x', retry: 'anywhere' };
const broken: UpstreamFailure = { kind: 'server', status: 502, message: 'x', retry: 'elsewhere' };
const refused: UpstreamFailure = { kind: 'client', status: 400, message: 'x' };

describe('retry policy', () => {
  test('automatic selection fails over while providers are left to try, whatever the retry scope', () => {
    assert.deepEqual(nextStep(throttled, STATE, CONFIG, 100), { kind: 'failover' });
    assert.deepEqual(nextStep(broken, STATE, CONFIG, 100), { kind: 'failover' });
    assert.deepEqual(nextStep(broken, { ...STATE, providersTried: 3 }, CONFIG, 100), { kind: 'stop' });
  });

  test('a client error is never retried, anywhere', () => {
    assert.deepEqual(nextStep(refused, STATE, CONFIG, 100), { kind: 'stop' });
    assert.deepEqual(nextStep(refused, { ...STATE, fallbackLeft: true }, CONFIG, 100), { kind: 'stop' });
  });

  test('an explicit provider is retried only for failures it proves it did not process, a bounded number of times', () => {
    const explicit = { ...STATE, automatic: false };
    assert.deepEqual(nextStep(throttled, explicit, CONFIG, 300), { kind: 'retry', waitMs: 300 });
    assert.deepEqual(nextStep(broken, explicit, CONFIG, 300), { kind: 'stop' });
    assert.deepEqual(nextStep(throttled, { ...explicit, sameRetries: 2 }, CONFIG, 300), { kind: 'stop' });
  });

  test('a wait past the maximum or past the deadline is not made: the client gets the error', () => {
    const explicit = { ...STATE, automatic: false };
    assert.deepEqual(nextStep(throttled, explicit, CONFIG, 4_001), { kind: 'stop' });
    assert.deepEqual(nextStep(throttled, { ...explicit, remainingMs: 200 }, CONFIG, 300), { kind: 'stop' });
  });

  test('past its retries, a retryable failure moves to the next entry of the fallback list', () => {
    const explicit = { ...STATE, automatic: false, sameRetries: 2, fallbackLeft: true };
    assert.deepEqual(afterFailover(throttled, explicit, CONFIG, 300), { kind: 'fallback' });
    assert.deepEqual(afterFailover(broken, { ...explicit, sameRetries: 0 }, CONFIG, 300), {
      kind: 'fallback',
    });
  });

  test('backoff: Retry-After when sent (seconds or a date), else jittered doubling from 250 ms', () => {
    assert.equal(retryDelayMs({ ...throttled, retryAfter: '2' }, 0), 2_000);
    const now = Date.parse('2026-11-28T10:00:00Z');
    assert.equal(retryDelayMs({ ...throttled, retryAfter: 'Sat, 28 Nov 2026 10:00:03 GMT' }, 0, now), 3_000);
    assert.equal(
      retryDelayMs(throttled, 0, now, () => 0),
      125,
    );
    assert.equal(
      retryDelayMs(throttled, 0, now, () => 1),
      250,
    );
    assert.equal(
      retryDelayMs(throttled, 2, now, () => 0.5),
      750,
    );
  });
});
