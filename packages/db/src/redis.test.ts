import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { testRedis } from './testing.ts';

const first = testRedis();
const second = testRedis();

describe('redis helper', { skip: 'skip' in first ? first.skip : undefined }, () => {
  it('namespaces keys by prefix so tests and deployments can share one server', async () => {
    if ('skip' in first || 'skip' in second) return;
    try {
      await first.redis.set('sticky', 'cloud_b', 'PX', 5000);
      await second.redis.set('sticky', 'developer', 'PX', 5000);
      assert.equal(await first.redis.get('sticky'), 'cloud_b');
      assert.equal(await second.redis.get('sticky'), 'developer');
      assert.notEqual(first.prefix, second.prefix);
    } finally {
      await first.redis.del('sticky');
      await second.redis.del('sticky');
      first.redis.disconnect();
      second.redis.disconnect();
    }
  });
});
