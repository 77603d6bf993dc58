import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { tokenCache } from './token-cache.ts';

/** A clock the test moves by hand: expiry is checked without waiting. */
function manualClock(): { now: () => number; advance: (ms: number) => void } {
  let time = 1_000;
  return { now: () => time, advance: (ms) => void (time += ms) };
}

describe('token cache', () => {
  test('remembers a token for its TTL from the database read, then forgets it', () => {
    const clock = manualClock();
    const cache = tokenCache(2_000, { now: clock.now });
    assert.ok(cache);
    cache.remember('hash-a', 7, cache.generation());
    clock.advance(1_500);
    assert.equal(cache.userIdFor('hash-a'), 7);
    clock.advance(600);
    assert.equal(cache.userIdFor('hash-a'), undefined, 'used within the TTL, still expires from the read');
  });

  test('forgets retired tokens at once', () => {
    const cache = tokenCache(60_000);
    assert.ok(cache);
    cache.remember('hash-a', 7, cache.generation());
    cache.remember('hash-b', 7, cache.generation());
    cache.forget(['hash-a']);
    assert.equal(cache.userIdFor('hash-a'), undefined);
    assert.equal(cache.userIdFor('hash-b'), 7);
  });

  test('does not remember a read that was in flight while a token was retired', () => {
    const cache = tokenCache(60_000);
    assert.ok(cache);
    const readAt = cache.generation();
    cache.forget(['hash-a']); // another request retires the token before this read returns
    cache.remember('hash-a', 7, readAt);
    assert.equal(cache.userIdFor('hash-a'), undefined);
    cache.remember('hash-a', 7, cache.generation());
    assert.equal(cache.userIdFor('hash-a'), 7, 'a read started after the retirement is remembered');
  });

  test('holds a bounded number of tokens', () => {
    const cache = tokenCache(60_000, { max: 2 });
    assert.ok(cache);
    cache.remember('hash-a', 1, cache.generation());
    cache.remember('hash-b', 2, cache.generation());
    cache.remember('hash-c', 3, cache.generation());
    assert.equal(cache.userIdFor('hash-a'), undefined);
    assert.equal(cache.userIdFor('hash-c'), 3);
  });

  test('a TTL of 0 means no cache', () => {
    assert.equal(tokenCache(0), undefined);
  });
});
