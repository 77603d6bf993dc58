import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, describe, it, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createRedis, type Redis } from '@app/db';
import { testRedis } from '@app/db/testing.ts';
import pino from 'pino';
import { CircuitBreakers } from './breaker.ts';
import { manualClock } from './testing.ts';
import { type HealthBus, openKey, parseHealthMessage, startHealthBus } from './health-bus.ts';

const COOLDOWN_MS = 30_000;

function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { log: pino({ level: 'info' }, stream), lines };
}

/** One instance's breakers and bus on `redis` (its own connection, the shared key prefix). */
async function instance(redis: Redis, options: { now?: () => number; startWaitMs?: number } = {}) {
  const now = options.now ?? Date.now;
  const changes: string[] = [];
  // The breakers publish through the bus, which applies remote events to the breakers.
  const wire: { bus?: HealthBus } = {};
  const breakers = new CircuitBreakers({
    failures: 3,
    cooldownMs: COOLDOWN_MS,
    now,
    onChange: (key, state, cause) => changes.push(`${key} ${state} ${cause}`),
    onEvent: (event) => wire.bus?.publish(event),
  });
  const { log, lines } = capture();
  const keys = ['cloud_a', 'cloud_b'];
  const bus = await startHealthBus({ redis, breakers, keys, cooldownMs: COOLDOWN_MS, now, log, ...options });
  wire.bus = bus;
  return { breakers, bus, changes, lines };
}

async function until(condition: () => boolean, what: string, limitMs = 2_000): Promise<number> {
  const start = performance.now();
  while (!condition()) {
    assert.ok(performance.now() - start < limitMs, `${what}: not within ${limitMs} ms`);
    await sleep(2);
  }
  return performance.now() - start;
}

test('only well-formed messages are taken from the channel', () => {
  const good = { v: 1, from: 'i1', key: 'cloud_b', kind: 'open', at: 1, sentAt: 2 };
  assert.deepEqual(parseHealthMessage(JSON.stringify(good)), good);
  for (const bad of [
    'not json',
    '{}',
    JSON.stringify({ ...good, kind: 'explode' }),
    JSON.stringify({ ...good, v: 2 }),
  ])
    assert.equal(parseHealthMessage(bad), undefined, bad);
});

const shared = testRedis();
const skip = 'skip' in shared ? shared.skip : undefined;
const prefix = 'prefix' in shared ? shared.prefix : '';

describe('health shared through Redis', { skip }, () => {
  const clients: Redis[] = [];
  const buses: HealthBus[] = [];
  const connect = (keyPrefix?: string) => {
    assert.ok('url' in shared);
    const client = createRedis(shared.url, { keyPrefix: keyPrefix ?? prefix });
    clients.push(client);
    return client;
  };
  const start = async (keyPrefix?: string) => {
    const started = await instance(connect(keyPrefix));
    buses.push(started.bus);
    return started;
  };
  after(async () => {
    for (const bus of buses) await bus.close();
    for (const client of clients) client.disconnect();
    if ('redis' in shared) shared.redis.disconnect();
  });

  it('an opening on one instance opens the circuit on the others, within a second, and on no other prefix', async () => {
    const a = await start();
    const b = await start();
    const elsewhere = await start(`${prefix}other:`);
    const raw = { v: 1, from: 'someone', kind: 'open', at: Date.now(), sentAt: Date.now() };
    await connect().publish(`${prefix}health:events`, JSON.stringify({ ...raw, key: 'nowhere' }));
    for (let i = 0; i < 3; i++) a.breakers.record('cloud_b', 'server');
    assert.equal(a.breakers.state('cloud_b'), 'open');
    const ms = await until(() => b.breakers.state('cloud_b') === 'open', 'B opened', 1_000);
    assert.ok(b.breakers.retryAfterMs('cloud_b') > COOLDOWN_MS - 1_000, 'with the rest of the cooldown');
    assert.deepEqual(b.changes, ['cloud_b open fleet']);
    assert.deepEqual(a.changes, ['cloud_b open failures'], 'A ignores its own messages');
    assert.equal(b.breakers.state('cloud_a'), 'closed', 'per endpoint');
    assert.equal(b.breakers.state('nowhere'), 'closed', 'an endpoint B does not have is ignored');
    await a.bus.flushed();
    await sleep(50);
    assert.equal(elsewhere.breakers.state('cloud_b'), 'closed', 'another key prefix is another fleet');
    console.log(`# remote opening applied after ${ms.toFixed(1)} ms`);

    // An instance started now learns the open circuit from Redis, with what is left of the cooldown.
    const late = await start();
    assert.equal(late.breakers.state('cloud_b'), 'open');
    assert.ok(late.breakers.retryAfterMs('cloud_b') > COOLDOWN_MS - 2_000);

    // A closing (the trial succeeded somewhere) closes everywhere and clears the key.
    a.breakers.record('cloud_b', 'ok');
    await until(() => b.breakers.state('cloud_b') === 'closed', 'B closed');
    await until(() => late.breakers.state('cloud_b') === 'closed', 'the late instance closed');
    await a.bus.flushed();
    assert.equal(await connect().exists(openKey('cloud_b')), 0);
    assert.equal((await start()).breakers.state('cloud_b'), 'closed');
  });

  it('failures count across the fleet: three on two instances open the circuit', async () => {
    const a = await start();
    const b = await start();
    a.breakers.record('cloud_a', 'server');
    await a.bus.flushed();
    await until(() => b.breakers.state('cloud_a') === 'closed' && b.changes.length === 0, 'settled');
    b.breakers.record('cloud_a', 'timeout');
    await b.bus.flushed();
    await sleep(50);
    a.breakers.record('cloud_a', 'connection');
    assert.equal(a.breakers.state('cloud_a'), 'open', 'the third failure of the fleet, the first here');
    await until(() => b.breakers.state('cloud_a') === 'open', 'B opened');
    // A success resets the fleet's count: after the circuit closes, two more failures are not enough.
    a.breakers.record('cloud_a', 'ok');
    await until(() => b.breakers.state('cloud_a') === 'closed', 'B closed');
    b.breakers.record('cloud_a', 'server');
    b.breakers.record('cloud_a', 'ok');
    a.breakers.record('cloud_a', 'server');
    await b.bus.flushed();
    await a.bus.flushed();
    await sleep(50);
    a.breakers.record('cloud_a', 'server');
    assert.equal(a.breakers.state('cloud_a'), 'closed', "B's success reset the count");
  });
});

test('an unreachable Redis does not hold start-up back, and the breakers work alone', async () => {
  const redis = createRedis('redis://127.0.0.1:1');
  redis.on('error', () => {});
  const started = performance.now();
  const { breakers, bus } = await instance(redis, { startWaitMs: 200 });
  try {
    assert.ok(performance.now() - started < 2_000, 'start-up waited for Redis for longer than its bound');
    for (let i = 0; i < 3; i++) breakers.record('cloud_b', 'server');
    assert.equal(breakers.state('cloud_b'), 'open');
  } finally {
    await bus.close();
    redis.disconnect();
  }
});

describe('losing Redis', { skip }, () => {
  it('never fails a report, and warns once per interval', async () => {
    assert.ok('url' in shared);
    const redis = createRedis(shared.url, { keyPrefix: shared.prefix });
    const clock = manualClock();
    const { breakers, bus, lines } = await instance(redis, { now: clock.now });
    const warnings = () => lines.map((line) => JSON.parse(line) as { level: number; msg: string });
    try {
      redis.disconnect();
      for (let i = 0; i < 3; i++) breakers.record('cloud_b', 'server');
      await bus.flushed();
      breakers.record('cloud_b', 'ok');
      await bus.flushed();
      assert.equal(breakers.state('cloud_b'), 'closed', 'the local breaker works alone');
      assert.deepEqual(
        warnings().map((w) => [w.level, w.msg]),
        [[40, 'could not share breaker health through Redis; breakers are per instance']],
        'one warning per interval',
      );
      clock.advance(10_000);
      breakers.record('cloud_b', 'server');
      await bus.flushed();
      assert.equal(warnings().length, 2, 'and again after it');
    } finally {
      await bus.close();
    }
  });
});
