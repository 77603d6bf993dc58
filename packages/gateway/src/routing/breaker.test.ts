import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CircuitBreakers } from './breaker.ts';
import { manualClock } from './testing.ts';

function breakers() {
  const clock = manualClock();
  return { clock, breakers: new CircuitBreakers({ failures: 3, cooldownMs: 10_000, now: clock.now }) };
}

test('opens after N consecutive counted failures; a success in between resets the count', () => {
  const { breakers: b } = breakers();
  b.record('x', 'server');
  b.record('x', 'timeout');
  b.record('x', 'ok');
  b.record('x', 'connection');
  b.record('x', 'server');
  assert.equal(b.state('x'), 'closed');
  b.record('x', 'server');
  assert.equal(b.state('x'), 'open');
  assert.equal(b.allows('x'), false);
  assert.equal(b.allows('y'), true, 'per key');
});

test('half-open after the cooldown lets one trial through; its failure reopens', () => {
  const { breakers: b, clock } = breakers();
  for (let i = 0; i < 3; i++) b.record('x', 'server');
  clock.advance(4_000);
  assert.equal(b.retryAfterMs('x'), 6_000);
  clock.advance(6_000);
  assert.equal(b.state('x'), 'half-open');
  assert.equal(b.allows('x'), true);
  b.acquire('x');
  assert.equal(b.allows('x'), false, 'one trial at a time');
  b.record('x', 'timeout');
  assert.equal(b.state('x'), 'open', 'one failed trial reopens');
  clock.advance(10_000);
  b.acquire('x');
  b.record('x', 'ok');
  assert.equal(b.state('x'), 'closed');
});

test('a trial whose report is lost is handed out again after another cooldown', () => {
  const { breakers: b, clock } = breakers();
  for (let i = 0; i < 3; i++) b.record('x', 'server');
  clock.advance(10_000);
  b.acquire('x');
  clock.advance(9_999);
  assert.equal(b.allows('x'), false);
  clock.advance(1);
  assert.equal(b.allows('x'), true);
});

test('a trial not sent, or answered with a client error or a rate limit, is handed out again at once', () => {
  const { breakers: b, clock } = breakers();
  for (let i = 0; i < 3; i++) b.record('x', 'server');
  clock.advance(10_000);
  for (const ending of ['unsent', 'client', 'rate_limited'] as const) {
    b.acquire('x');
    assert.equal(b.allows('x'), false);
    if (ending === 'unsent') b.release('x');
    else b.record('x', ending);
    assert.equal(b.allows('x'), true, ending);
    assert.equal(b.state('x'), 'half-open', ending);
  }
  b.release('y');
  assert.equal(b.state('y'), 'closed', 'nothing to give back on a closed circuit');
});

test('late failures while open do not extend the cooldown', () => {
  const { breakers: b, clock } = breakers();
  for (let i = 0; i < 3; i++) b.record('x', 'server');
  clock.advance(5_000);
  b.record('x', 'server');
  assert.equal(b.retryAfterMs('x'), 5_000);
});

test('refused credentials count like a server failure: the endpoint fails every request', () => {
  const { breakers: b } = breakers();
  for (let i = 0; i < 3; i++) b.record('x', 'auth');
  assert.equal(b.state('x'), 'open');
});

test('client errors and rate limits neither count nor reset', () => {
  const { breakers: b } = breakers();
  b.record('x', 'server');
  b.record('x', 'server');
  b.record('x', 'client');
  b.record('x', 'rate_limited');
  b.record('x', 'server');
  assert.equal(b.state('x'), 'open');
});

test('opening and closing are announced once each', () => {
  const clock = manualClock();
  const changes: string[] = [];
  const b = new CircuitBreakers({
    failures: 2,
    cooldownMs: 1000,
    now: clock.now,
    onChange: (key, state) => changes.push(`${key} ${state}`),
  });
  b.record('cloud_a', 'server');
  b.record('cloud_a', 'ok');
  assert.deepEqual(changes, [], 'a closed circuit that stays closed says nothing');
  b.record('cloud_a', 'server');
  b.record('cloud_a', 'server');
  clock.advance(1000);
  b.record('cloud_a', 'ok');
  assert.deepEqual(changes, ['cloud_a open', 'cloud_a closed']);
});
