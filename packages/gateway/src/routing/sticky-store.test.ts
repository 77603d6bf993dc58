import assert from 'node:assert/strict';
import { after, test } from 'node:test';
import { testRedis } from '@app/db/testing.ts';
import { CircuitBreakers } from './breaker.ts';
import { createRouter } from './router.ts';
import { memoryStickyStore, redisStickyStore, resilientStickyStore } from './sticky-store.ts';
import { bundledCatalog, bundledUpstreams, fakeLedger, manualClock, principal } from './testing.ts';

const key = { userId: 1, projectId: 2, family: 'claude-opus' };
const HOUR = 3_600_000;

test('memory store: a choice expires after the idle time unless used', async () => {
  const clock = manualClock();
  const store = memoryStickyStore({ idleMs: HOUR, now: clock.now });
  await store.set(key, 'cloud_a');
  clock.advance(HOUR - 1);
  assert.equal(await store.get(key), 'cloud_a');
  clock.advance(HOUR - 1);
  assert.equal(await store.get(key), 'cloud_a');
  clock.advance(HOUR);
  assert.equal(await store.get(key), undefined);
});

test('memory store: drop only removes the choice it names', async () => {
  const clock = manualClock();
  const store = memoryStickyStore({ idleMs: HOUR, now: clock.now });
  await store.set(key, 'cloud_b');
  await store.drop(key, 'cloud_a');
  assert.equal(await store.get(key), 'cloud_b');
  await store.drop(key, 'cloud_b');
  assert.equal(await store.get(key), undefined);
});

test("memory store: a session has its own choice beside the user's", async () => {
  const clock = manualClock();
  const store = memoryStickyStore({ idleMs: HOUR, now: clock.now });
  await store.set(key, 'cloud_a');
  await store.set({ ...key, session: 's-1' }, 'cloud_b');
  assert.equal(await store.get(key), 'cloud_a');
  assert.equal(await store.get({ ...key, session: 's-1' }), 'cloud_b');
  assert.equal(await store.get({ ...key, session: 's-2' }), undefined);
  await store.drop({ ...key, session: 's-1' }, 'cloud_b');
  assert.equal(await store.get(key), 'cloud_a', 'dropping the session leaves the user choice');
});

test('memory store: at most maxEntries choices; the least recently used one goes first', async () => {
  const clock = manualClock();
  const store = memoryStickyStore({ idleMs: HOUR, now: clock.now, maxEntries: 3 });
  const session = (id: string) => ({ ...key, session: id });
  await store.set(session('a'), 'cloud_a');
  await store.set(session('b'), 'cloud_b');
  await store.set(session('c'), 'cloud_c');
  assert.equal(await store.get(session('a')), 'cloud_a', 'a is used again: b is now the oldest');
  await store.set(session('d'), 'developer');
  assert.equal(await store.get(session('b')), undefined, 'evicted');
  for (const [id, provider] of [
    ['a', 'cloud_a'],
    ['c', 'cloud_c'],
    ['d', 'developer'],
  ] as const)
    assert.equal(await store.get(session(id)), provider, id);
  await store.set(session('c'), 'cloud_a');
  assert.equal(await store.get(session('a')), 'cloud_a', 'replacing an entry evicts nothing');
  // Many sessions: the map never holds more than its bound.
  for (let i = 0; i < 1_000; i++) await store.set(session(`many-${i}`), 'cloud_b');
  let kept = 0;
  for (let i = 0; i < 1_000; i++) if ((await store.get(session(`many-${i}`))) !== undefined) kept++;
  assert.equal(kept, 3);
});

const shared = testRedis();
const skip = 'skip' in shared ? shared.skip : undefined;
after(() => {
  if ('redis' in shared) shared.redis.disconnect();
});

test(
  'redis store: two routers sharing a prefix keep one choice per (user, project, family)',
  {
    skip,
  },
  async () => {
    if (!('redis' in shared)) return;
    const catalog = bundledCatalog();
    const upstreams = bundledUpstreams(catalog);
    const clock = manualClock();
    const instance = (budgets: Parameters<typeof fakeLedger>[0]) =>
      createRouter({
        catalog,
        upstreams,
        breakers: new CircuitBreakers({ failures: 3, cooldownMs: 1000, now: clock.now }),
        sticky: redisStickyStore(shared.redis, { idleMs: HOUR, now: clock.now }),
        ledger: fakeLedger(budgets).ledger,
      });
    // Each instance alone would choose differently: A prefers cloud_a, B prefers cloud_b.
    const a = instance({ cloud_a: 900, cloud_b: 100 });
    const b = instance({ cloud_a: 100, cloud_b: 900 });
    const needs = { tools: false, webSearch: false };
    const plan = a.resolve('claude-opus', {});
    assert.equal((await a.select(plan, principal(), needs)).provider, 'cloud_a');
    assert.equal(
      (await b.select(plan, principal(), needs)).provider,
      'cloud_a',
      'B follows the shared choice',
    );
    assert.equal(await shared.redis.get('sticky:1:10:claude-opus'), 'cloud_a', 'key under the client prefix');
    const selection = await b.select(plan, principal(), needs);
    await b.report(selection, principal(), plan, 'server');
    assert.equal(
      (await b.select(plan, principal(), needs)).provider,
      'cloud_b',
      'the failure dropped the choice',
    );
    assert.equal((await a.select(plan, principal(), needs)).provider, 'cloud_b', 'A follows the new choice');
    assert.equal((await a.select(plan, principal({ userId: 2 }), needs)).provider, 'cloud_a', 'per user');
  },
);

test(
  'redis store: idle TTL is set, refreshed at most once per refresh interval, and drop compares',
  {
    skip,
  },
  async () => {
    if (!('redis' in shared)) return;
    const clock = manualClock();
    const store = redisStickyStore(shared.redis, { idleMs: 60_000, now: clock.now });
    const mine = { userId: 5, projectId: 6, family: 'gpt' };
    await store.set(mine, 'developer');
    const ttl = await shared.redis.pttl('sticky:5:6:gpt');
    assert.ok(ttl > 55_000 && ttl <= 60_000, String(ttl));
    await shared.redis.pexpire('sticky:5:6:gpt', 30_000);
    assert.equal(await store.get(mine), 'developer');
    assert.ok((await shared.redis.pttl('sticky:5:6:gpt')) <= 30_000, 'fresh: no write');
    clock.advance(6_000);
    assert.equal(await store.get(mine), 'developer');
    assert.ok((await shared.redis.pttl('sticky:5:6:gpt')) > 55_000, 'refreshed after the interval');
    await store.drop(mine, 'cloud_c');
    assert.equal(await shared.redis.get('sticky:5:6:gpt'), 'developer');
    await store.drop(mine, 'developer');
    assert.equal(await shared.redis.get('sticky:5:6:gpt'), null);
  },
);

test('redis store: a session is its own key with the idle TTL', { skip }, async () => {
  if (!('redis' in shared)) return;
  const clock = manualClock();
  const store = redisStickyStore(shared.redis, { idleMs: 60_000, now: clock.now });
  const mine = { userId: 7, projectId: 8, family: 'gpt', session: '0b7e-uuid' };
  await store.set(mine, 'cloud_c');
  assert.equal(await shared.redis.get('sticky:7:8:gpt:s:0b7e-uuid'), 'cloud_c');
  const ttl = await shared.redis.pttl('sticky:7:8:gpt:s:0b7e-uuid');
  assert.ok(ttl > 55_000 && ttl <= 60_000, String(ttl));
  assert.equal(await store.get({ ...mine, session: undefined }), undefined, 'not the user key');
  await store.drop(mine, 'cloud_c');
  assert.equal(await shared.redis.get('sticky:7:8:gpt:s:0b7e-uuid'), null);
});

test('resilient store: a failing store means no stickiness, not a failed request; warnings are throttled', async () => {
  const clock = manualClock();
  const broken = {
    get: async () => Promise.reject(new Error('ECONNREFUSED')),
    set: async () => Promise.reject(new Error('ECONNREFUSED')),
    drop: async () => Promise.reject(new Error('ECONNREFUSED')),
    close: async () => {},
  };
  const warnings: string[] = [];
  const store = resilientStickyStore(broken, {
    warn: (_error, message) => warnings.push(message),
    now: clock.now,
  });
  assert.equal(await store.get(key), undefined);
  await store.set(key, 'cloud_a');
  await store.drop(key, 'cloud_a');
  assert.equal(warnings.length, 1, 'one warning per quiet period');
  clock.advance(10_000);
  await store.set(key, 'cloud_a');
  assert.equal(warnings.length, 2);
});
