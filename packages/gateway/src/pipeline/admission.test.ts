import assert from 'node:assert/strict';
import { test } from 'node:test';
import { type AdmissionClock, createAdmission } from './admission.ts';

/** A loop on a fake clock: `turn()` runs what was deferred so far, as a check phase does. */
function fakeLoop() {
  let now = 0;
  let deferred: Array<() => void> = [];
  const clock: AdmissionClock = {
    now: () => now,
    defer: (task) => void deferred.push(task),
  };
  return {
    clock,
    advance: (ms: number) => void (now += ms),
    turn() {
      const tasks = deferred;
      deferred = [];
      for (const task of tasks) task();
    },
    get pending() {
      return deferred.length;
    },
  };
}

test('an idle loop admits at once, every request of a turn within the budget', () => {
  const loop = fakeLoop();
  const admission = createAdmission({ budgetMs: 5, clock: loop.clock });
  const admitted: number[] = [];
  for (let i = 0; i < 3; i++) {
    admission.admit(() => admitted.push(i));
    loop.advance(1);
  }
  assert.deepEqual(admitted, [0, 1, 2]);
  assert.equal(admission.queued, 0);
});

test('once a turn has spent its budget, later requests wait for the next turn, in order', () => {
  const loop = fakeLoop();
  const admission = createAdmission({ budgetMs: 5, clock: loop.clock });
  const admitted: number[] = [];
  // Each admitted request costs 2 ms of synchronous work in the turn.
  const arrive = (i: number) => admission.admit(() => (admitted.push(i), loop.advance(2)));
  for (let i = 0; i < 10; i++) arrive(i);
  assert.deepEqual(admitted, [0, 1, 2], 'the turn stops admitting after 5 ms');
  assert.equal(admission.queued, 7);
  loop.turn();
  assert.deepEqual(admitted, [0, 1, 2, 3, 4, 5], 'the next turn admits its budget');
  loop.turn();
  loop.turn();
  assert.deepEqual(admitted, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
  assert.equal(admission.queued, 0);
});

test('a request arriving while others wait goes behind them, even when the turn has budget', () => {
  const loop = fakeLoop();
  const admission = createAdmission({ budgetMs: 5, clock: loop.clock });
  const admitted: string[] = [];
  admission.admit(() => (admitted.push('a'), loop.advance(6)));
  admission.admit(() => admitted.push('b'));
  loop.turn();
  // A new turn: the budget is fresh, but 'b' was first.
  const late = () => admitted.push('c');
  assert.deepEqual(admitted, ['a', 'b']);
  admission.admit(late);
  assert.deepEqual(admitted, ['a', 'b', 'c']);
});

test('nothing is lost: a burst far above the per-turn limit is fully admitted in order', () => {
  const loop = fakeLoop();
  const admission = createAdmission({ budgetMs: 5, perTurn: 4, clock: loop.clock });
  const admitted: number[] = [];
  for (let i = 0; i < 1000; i++) admission.admit(() => (admitted.push(i), loop.advance(1)));
  let turns = 0;
  while (admission.queued > 0 && turns < 10_000) {
    loop.turn();
    turns++;
  }
  assert.deepEqual(
    admitted,
    Array.from({ length: 1000 }, (_, i) => i),
  );
  assert.ok(turns >= 995 / 4, `at most perTurn releases per turn (${turns} turns)`);
  loop.turn();
  assert.equal(loop.pending, 0, 'no immediates left once the queue is empty');
});

test('the work of each release counts before the next one (one release per deferred task)', () => {
  const loop = fakeLoop();
  const admission = createAdmission({ budgetMs: 5, clock: loop.clock });
  const admitted: number[] = [];
  admission.admit(() => loop.advance(10));
  for (let i = 0; i < 5; i++) admission.admit(() => (admitted.push(i), loop.advance(3)));
  loop.turn();
  // 3 ms + 3 ms passes the 5 ms budget: two releases in this turn, not five.
  assert.deepEqual(admitted, [0, 1]);
});

test('while a queue drains through long turns, each turn may admit for half the last turn, up to 4x the budget', () => {
  const loop = fakeLoop();
  const admission = createAdmission({ budgetMs: 5, clock: loop.clock });
  const admitted: number[] = [];
  admission.admit(() => loop.advance(6));
  for (let i = 0; i < 40; i++) admission.admit(() => (admitted.push(i), loop.advance(1)));
  loop.turn();
  assert.equal(admitted.length, 5, 'the first draining turn: the base budget');
  loop.advance(15); // other work of the loop (the open streams): a 20 ms turn
  loop.turn();
  assert.equal(admitted.length, 15, 'half of the 20 ms turn before');
  loop.advance(100);
  loop.turn();
  assert.equal(admitted.length, 35, 'at most 4 x 5 ms');
  loop.turn();
  assert.equal(admission.queued, 0);
  // Once the queue is empty, the next burst starts again from the base budget.
  loop.turn();
  for (let i = 40; i < 60; i++) admission.admit(() => (admitted.push(i), loop.advance(1)));
  assert.equal(admitted.length, 45);
});
