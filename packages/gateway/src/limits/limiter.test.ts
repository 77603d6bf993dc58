/**
 * One behaviour suite for both limiters: the in-process one (with a controlled clock for the
 * window's edges) and the Redis one (server time; skipped with a reason without TEST_REDIS_URL).
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { createRedis } from '@app/db';
import { testRedis } from '@app/db/testing.ts';
import type { Admission, LimitRule, RateLimiter } from '../contracts.ts';
import { createRateLimiter } from './index.ts';
import { memoryLimiter } from './memory-limiter.ts';
import { redisLimiter } from './redis-limiter.ts';

const rule = (limits: LimitRule['limits'], scope: LimitRule['scope'] = 'token', key = 'k'): LimitRule => ({
  scope,
  key,
  limits,
});

function admitted(admission: Admission) {
  assert.ok(admission.admitted, `expected admission, got ${JSON.stringify(admission)}`);
  return admission;
}

function behaviours(name: string, make: () => RateLimiter, skip?: string) {
  describe(`${name} limiter`, { skip }, () => {
    const made: RateLimiter[] = [];
    let limiter: RateLimiter;
    const fresh = () => made.push((limiter = make()));
    after(() => Promise.all(made.map((one) => one.close())));

    test('admits exactly the requests per minute, then refuses with when to come back', async () => {
      fresh();
      const rules = [rule({ requestsPerMinute: 3 })];
      for (let i = 0; i < 3; i++) admitted(await limiter.admit(rules, 10));
      const refused = await limiter.admit(rules, 10);
      assert.equal(refused.admitted, false);
      if (refused.admitted) return;
      assert.equal(refused.dimension, 'requests');
      assert.equal(refused.limit, 3);
      assert.ok(
        refused.retryAfterMs !== undefined && refused.retryAfterMs > 59_000 && refused.retryAfterMs <= 60_000,
      );
      assert.deepEqual(refused.state.requests?.remaining, 0);
    });

    test('remaining and reset describe the tightest scope', async () => {
      fresh();
      const rules = [
        rule({ requestsPerMinute: 10 }, 'project', 'p'),
        rule({ requestsPerMinute: 2 }, 'token', 't'),
      ];
      const first = admitted(await limiter.admit(rules, 0));
      assert.deepEqual(first.state.requests?.limit, 2);
      assert.equal(first.state.requests?.remaining, 1);
      assert.ok((first.state.requests?.resetMs ?? 0) > 59_000);
      assert.equal(first.state.tokens, undefined, 'no tokens limit, no tokens figures');
    });

    test('all or nothing: a refusal by one scope counts against none', async () => {
      fresh();
      const project = rule({ requestsPerMinute: 5 }, 'project', 'p');
      const tight = rule({ requestsPerMinute: 1 }, 'token', 'a');
      admitted(await limiter.admit([project, tight], 0));
      for (let i = 0; i < 3; i++) assert.equal((await limiter.admit([project, tight], 0)).admitted, false);
      const other = rule({ requestsPerMinute: 10 }, 'token', 'b');
      const next = admitted(await limiter.admit([project, other], 0));
      assert.equal(next.state.requests?.remaining, 3, 'the project counted 2 admitted requests only');
    });

    test('tokens count the estimate while running and the real usage once finished', async () => {
      fresh();
      const rules = [rule({ tokensPerMinute: 1000 })];
      const first = admitted(await limiter.admit(rules, 800));
      assert.equal(first.state.tokens?.remaining, 200);
      const refused = await limiter.admit(rules, 300);
      assert.equal(refused.admitted, false);
      if (!refused.admitted) assert.equal(refused.dimension, 'tokens');
      await first.ticket.finish(100);
      const second = admitted(await limiter.admit(rules, 300));
      assert.equal(second.state.tokens?.remaining, 600);
      await second.ticket.finish(300);
      await second.ticket.finish(0); // a second finish changes nothing
      const third = admitted(await limiter.admit(rules, 1));
      assert.equal(third.state.tokens?.remaining, 599);
    });

    test('a request asking more tokens than the limit is refused for good', async () => {
      fresh();
      const refused = await limiter.admit([rule({ tokensPerMinute: 100 })], 101);
      assert.equal(refused.admitted, false);
      if (!refused.admitted) assert.equal(refused.retryAfterMs, undefined);
    });

    test('concurrency holds a slot until the request finishes', async () => {
      fresh();
      const rules = [rule({ concurrentRequests: 2 })];
      const a = admitted(await limiter.admit(rules, 0));
      admitted(await limiter.admit(rules, 0));
      const refused = await limiter.admit(rules, 0);
      assert.equal(refused.admitted, false);
      if (!refused.admitted) assert.equal(refused.dimension, 'concurrency');
      await a.ticket.finish(0);
      admitted(await limiter.admit(rules, 0));
    });

    test('a limit of zero refuses everything, for good', async () => {
      fresh();
      const refused = await limiter.admit([rule({ requestsPerMinute: 0 })], 0);
      assert.equal(refused.admitted, false);
      if (!refused.admitted) assert.equal(refused.retryAfterMs, undefined);
    });

    test('hundreds of parallel requests: admitted equals the limit exactly', async () => {
      fresh();
      const rules = [
        rule({ requestsPerMinute: 37 }, 'project', 'race'),
        rule({ tokensPerMinute: 10_000 }, 'token', 'race'),
      ];
      const results = await Promise.all(Array.from({ length: 300 }, () => limiter.admit(rules, 200)));
      const count = results.filter((r) => r.admitted).length;
      assert.equal(count, 37);
    });
  });
}

behaviours('in-process', () => memoryLimiter({ leaseMs: 60_000 }));

const shared = testRedis();
const skip = 'skip' in shared ? shared.skip : undefined;
let fresh = 0;
/** Each Redis limiter of the suite counts under its own key prefix, as a fresh one would. */
function isolatedRedisLimiter(): RateLimiter {
  if (!('redis' in shared)) throw new Error(skip);
  const client = createRedis(shared.url, { keyPrefix: `${shared.prefix}${++fresh}:` });
  const limiter = redisLimiter(client, { leaseMs: 60_000 });
  return { admit: limiter.admit, close: async () => client.disconnect() };
}
behaviours('Redis', isolatedRedisLimiter, skip);

describe('Redis limiter across instances', { skip }, () => {
  after(() => {
    if ('redis' in shared) shared.redis.disconnect();
  });
  test('two instances share one window: 400 parallel requests, exactly the limit admitted', async () => {
    if (!('redis' in shared)) return;
    const second = createRedis(shared.url, { keyPrefix: shared.prefix });
    try {
      const a = redisLimiter(shared.redis, { leaseMs: 60_000 });
      const b = redisLimiter(second, { leaseMs: 60_000 });
      const rules = [rule({ requestsPerMinute: 150, concurrentRequests: 1000 }, 'project', 'two')];
      const results = await Promise.all(
        Array.from({ length: 400 }, (_, i) => (i % 2 ? a : b).admit(rules, 0)),
      );
      assert.equal(results.filter((r) => r.admitted).length, 150);
    } finally {
      second.disconnect();
    }
  });
});

describe('in-process limiter at the window edges', () => {
  test('a request frees its slot exactly one minute after it was admitted', async () => {
    let now = 1_000_000;
    const limiter = memoryLimiter({ leaseMs: 60_000, now: () => now });
    const rules = [rule({ requestsPerMinute: 1, tokensPerMinute: 50 })];
    admitted(await limiter.admit(rules, 50));
    now += 59_999;
    const refused = await limiter.admit(rules, 1);
    assert.equal(refused.admitted, false);
    if (!refused.admitted) assert.equal(refused.retryAfterMs, 1);
    now += 1;
    const next = admitted(await limiter.admit(rules, 50));
    assert.equal(next.state.tokens?.remaining, 0);
    assert.equal(next.state.requests?.resetMs, 60_000);
    await limiter.close();
  });

  test('a concurrency slot whose request never finished is freed when its lease ends', async () => {
    let now = 0;
    const limiter = memoryLimiter({ leaseMs: 5_000, now: () => now });
    const rules = [rule({ concurrentRequests: 1 })];
    admitted(await limiter.admit(rules, 0));
    assert.equal((await limiter.admit(rules, 0)).admitted, false);
    now += 5_000;
    admitted(await limiter.admit(rules, 0));
    await limiter.close();
  });
});

describe('when Redis fails', () => {
  test('requests are admitted without limits, counted and logged once, not failed', async () => {
    const unreachable = createRedis('redis://127.0.0.1:1');
    unreachable.on('error', () => {});
    const warnings: string[] = [];
    let errors = 0;
    const log = { warn: (_context: unknown, message: string) => warnings.push(message) };
    const limiter = createRateLimiter({
      redis: unreachable,
      leaseMs: 60_000,
      log: log as unknown as Parameters<typeof createRateLimiter>[0]['log'],
      onStoreError: () => errors++,
    });
    try {
      const rules = [rule({ requestsPerMinute: 0 })];
      const first = admitted(await limiter.admit(rules, 10));
      admitted(await limiter.admit(rules, 10));
      await first.ticket.finish(5);
      assert.deepEqual(first.state, {}, 'no headers without figures');
      assert.equal(errors, 2);
      assert.equal(warnings.length, 1, 'the warning is not repeated for every request');
    } finally {
      unreachable.disconnect();
    }
  });
});
