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

function observed(failures = 3) {
  const clock = manualClock();
  const changes: string[] = [];
  const events: string[] = [];
  const start = clock.now();
  const b = new CircuitBreakers({
    failures,
    cooldownMs: 10_000,
    now: clock.now,
    onChange: (key, state, cause) => changes.push(`${key} ${state} ${cause}`),
    onEvent: (event) => events.push(`${event.key} ${event.kind} @${event.at - start}`),
  });
  return { clock, changes, events, breakers: b };
}

test('an auth failure opens the circuit at once, as a configuration fault, and recovers by a trial', () => {
  const { breakers: b, clock, changes } = observed();
  b.record('cloud_b', 'auth');
  assert.equal(b.state('cloud_b'), 'open', 'no count: the first refusal opens');
  assert.deepEqual(changes, ['cloud_b open auth']);
  clock.advance(5_000);
  b.record('cloud_b', 'auth');
  assert.equal(b.retryAfterMs('cloud_b'), 5_000, 'a late refusal does not extend the cooldown');
  clock.advance(5_000);
  b.acquire('cloud_b');
  b.record('cloud_b', 'auth');
  assert.equal(b.state('cloud_b'), 'open', 'a refused trial reopens');
  assert.equal(b.retryAfterMs('cloud_b'), 10_000);
  clock.advance(10_000);
  b.acquire('cloud_b');
  b.record('cloud_b', 'ok');
  assert.equal(b.state('cloud_b'), 'closed');
  assert.deepEqual(changes, ['cloud_b open auth', 'cloud_b open auth', 'cloud_b closed success']);
});

test('local events are announced: counted failures, opening, closing, and a reset of a non-zero count', () => {
  const { breakers: b, clock, events } = observed();
  b.record('x', 'ok');
  b.record('x', 'client');
  b.record('x', 'rate_limited');
  assert.deepEqual(events, [], 'nothing to tell');
  b.record('x', 'server');
  clock.advance(1);
  b.record('x', 'ok');
  b.record('x', 'ok');
  assert.deepEqual(events, ['x failure @0', 'x reset @1'], 'one reset, then nothing: the count was zero');
  b.record('x', 'timeout');
  b.record('x', 'connection');
  b.record('x', 'server');
  b.record('x', 'server');
  clock.advance(10_000);
  b.record('x', 'ok');
  assert.deepEqual(events.slice(2), ['x failure @1', 'x failure @1', 'x open @1', 'x close @10001']);
});

test('a remote opening opens here for the rest of its cooldown, and is not announced again', () => {
  const { breakers: b, clock, changes, events } = observed();
  b.applyRemote({ key: 'x', kind: 'open', ageMs: 4_000 });
  assert.equal(b.state('x'), 'open');
  assert.equal(b.allows('x'), false);
  assert.equal(b.retryAfterMs('x'), 6_000);
  b.applyRemote({ key: 'x', kind: 'open', ageMs: 0 });
  assert.equal(b.retryAfterMs('x'), 6_000, 'a second opening while open changes nothing');
  b.applyRemote({ key: 'y', kind: 'open', ageMs: 10_000 });
  assert.equal(b.state('y'), 'closed', 'an opening whose cooldown is over is stale');
  clock.advance(6_000);
  assert.equal(b.state('x'), 'half-open', 'the trial is this instance’s own');
  b.applyRemote({ key: 'x', kind: 'open', ageMs: 0 });
  assert.equal(b.state('x'), 'open', "another instance's failed trial reopens here");
  b.applyRemote({ key: 'x', kind: 'close', ageMs: 0 });
  assert.equal(b.state('x'), 'closed');
  b.applyRemote({ key: 'x', kind: 'close', ageMs: 0 });
  assert.deepEqual(changes, ['x open fleet', 'x open fleet', 'x closed fleet']);
  assert.deepEqual(events, [], 'applied events are never announced');
});

test('remote failures add to the count; the instance that reaches the threshold opens and announces', () => {
  const { breakers: b, events, changes } = observed();
  b.applyRemote({ key: 'x', kind: 'failure', ageMs: 0 });
  b.record('x', 'server');
  assert.equal(b.state('x'), 'closed');
  b.applyRemote({ key: 'x', kind: 'failure', ageMs: 0 });
  assert.equal(b.state('x'), 'open', 'three failures in the fleet');
  assert.deepEqual(changes, ['x open failures']);
  assert.deepEqual(events, ['x failure @0', 'x open @0']);
  b.applyRemote({ key: 'x', kind: 'failure', ageMs: 0 });
  b.applyRemote({ key: 'x', kind: 'reset', ageMs: 0 });
  assert.equal(b.state('x'), 'open', 'a remote success may predate the opening: only a closing closes');
});

test('a remote reset clears the count of a closed circuit', () => {
  const { breakers: b, events } = observed();
  b.record('x', 'server');
  b.record('x', 'server');
  b.applyRemote({ key: 'x', kind: 'reset', ageMs: 0 });
  b.record('x', 'server');
  b.record('x', 'server');
  assert.equal(b.state('x'), 'closed');
  b.record('x', 'ok');
  assert.equal(events.at(-1), 'x reset @0');
});
