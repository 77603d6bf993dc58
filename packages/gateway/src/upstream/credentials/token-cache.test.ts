import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CredentialError } from './signer.ts';
import { eventually, manualClock } from './test-support.ts';
import { type FreshToken, TokenCache } from './token-cache.ts';

const HOUR = 3_600_000;
const MINUTE = 60_000;

function setup(lifetimeMs = HOUR, refreshInMs?: number) {
  const clock = manualClock(1_000_000);
  const calls: { resolve: (token: FreshToken) => void; reject: (error: unknown) => void }[] = [];
  let autoResolve = true;
  let issued = 0;
  const cache = new TokenCache({
    label: 'test',
    now: clock.now,
    fetch: () =>
      new Promise<FreshToken>((resolve, reject) => {
        calls.push({ resolve, reject });
        if (autoResolve)
          resolve({
            token: `t${++issued}`,
            lifetimeMs,
            ...(refreshInMs === undefined ? {} : { refreshInMs }),
          });
      }),
  });
  return { cache, clock, calls, manual: () => (autoResolve = false) };
}

describe('TokenCache', () => {
  test('fetches once and reuses the token', async () => {
    const { cache, calls } = setup();
    assert.equal(await cache.get(), 't1');
    assert.equal(await cache.get(), 't1');
    assert.equal(calls.length, 1);
  });

  test('concurrent callers share one fetch', async () => {
    const { cache, calls, manual } = setup();
    manual();
    const pending = Promise.all([cache.get(), cache.get(), cache.get()]);
    assert.equal(calls.length, 1);
    calls[0]?.resolve({ token: 'shared', lifetimeMs: HOUR });
    assert.deepEqual(await pending, ['shared', 'shared', 'shared']);
  });

  test('refreshes in the background once less than five minutes remain', async () => {
    const { cache, clock, calls } = setup();
    await cache.get();
    clock.advance(HOUR - 4 * MINUTE);
    assert.equal(await cache.get(), 't1', 'the still-valid token is used meanwhile');
    await eventually(() => calls.length === 2);
    assert.equal(await cache.get(), 't2');
  });

  test('waits for a new token when the old one is about to expire', async () => {
    const { cache, clock, calls } = setup();
    await cache.get();
    clock.advance(HOUR - 10_000);
    assert.equal(await cache.get(), 't2');
    assert.equal(calls.length, 2);
  });

  test('short-lived tokens refresh at half their lifetime; refresh_in is honoured', async () => {
    const short = setup(4 * MINUTE);
    await short.cache.get();
    short.clock.advance(2 * MINUTE + 1);
    await short.cache.get();
    await eventually(() => short.calls.length === 2);
    const hinted = setup(HOUR, 30 * MINUTE);
    await hinted.cache.get();
    hinted.clock.advance(30 * MINUTE);
    await hinted.cache.get();
    await eventually(() => hinted.calls.length === 2);
  });

  test('a failure reaches the caller, is held briefly, then retried', async () => {
    const { cache, clock, calls, manual } = setup();
    manual();
    const first = cache.get();
    calls[0]?.reject(new CredentialError('down'));
    await assert.rejects(first, /down/);
    await assert.rejects(cache.get(), /down/);
    assert.equal(calls.length, 1, 'no new request within the hold window');
    clock.advance(1_000);
    const second = cache.get();
    calls[1]?.resolve({ token: 'back', lifetimeMs: HOUR });
    assert.equal(await second, 'back');
  });

  test('a failed background refresh keeps the current token', async () => {
    const { cache, clock, calls, manual } = setup();
    await cache.get();
    manual();
    clock.advance(HOUR - 4 * MINUTE);
    assert.equal(await cache.get(), 't1');
    calls[1]?.reject(new CredentialError('down'));
    await new Promise((resolve) => setImmediate(resolve));
    assert.equal(await cache.get(), 't1');
    assert.equal(calls.length, 2, 'background retries wait');
  });

  test("one caller's abort does not cancel the shared fetch", async () => {
    const { cache, calls, manual } = setup();
    manual();
    const controller = new AbortController();
    const aborted = cache.get(controller.signal);
    const other = cache.get();
    controller.abort(new Error('client went away'));
    await assert.rejects(aborted, /client went away/);
    calls[0]?.resolve({ token: 'ok', lifetimeMs: HOUR });
    assert.equal(await other, 'ok');
  });

  test('rejects unusable tokens and refuses after close', async () => {
    const { cache, calls, manual } = setup();
    manual();
    const bad = cache.get();
    calls[0]?.resolve({ token: 'has space', lifetimeMs: HOUR });
    await assert.rejects(bad, /unusable token/);
    cache.close();
    await assert.rejects(cache.get(), /signer is closed/);
  });
});
