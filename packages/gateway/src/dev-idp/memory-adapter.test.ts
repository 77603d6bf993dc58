/** The development provider's in-memory store: lifetimes, lookups by uid, consumption, grants. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { memoryAdapter } from './memory-adapter.ts';

function clock() {
  let time = 1_000_000;
  return { now: () => time, advance: (ms: number) => (time += ms) };
}

test('an entry is found until its lifetime ends, then not', async () => {
  const { now, advance } = clock();
  const sessions = memoryAdapter(now)('Session');
  await sessions.upsert('s1', { uid: 'u1', accountId: 'dev-alice' }, 60);
  assert.equal((await sessions.find('s1'))?.accountId, 'dev-alice');
  assert.equal((await sessions.findByUid('u1'))?.accountId, 'dev-alice');
  advance(59_999);
  assert.ok(await sessions.find('s1'));
  advance(1);
  assert.equal(await sessions.find('s1'), undefined);
  assert.equal(await sessions.findByUid('u1'), undefined);
});

test('models are kept apart; consume marks, destroy removes', async () => {
  const { now } = clock();
  const adapter = memoryAdapter(now);
  const codes = adapter('AuthorizationCode');
  await codes.upsert('c1', { accountId: 'a' }, 60);
  assert.equal(await adapter('AccessToken').find('c1'), undefined);
  await codes.consume('c1');
  assert.equal((await codes.find('c1'))?.consumed, Math.floor(now() / 1000));
  await codes.destroy('c1');
  assert.equal(await codes.find('c1'), undefined);
});

test('revoking a grant removes its codes and tokens, not the grant-less or other grants', async () => {
  const { now } = clock();
  const adapter = memoryAdapter(now);
  await adapter('AuthorizationCode').upsert('c1', { grantId: 'g1' }, 60);
  await adapter('AccessToken').upsert('t1', { grantId: 'g1' }, 60);
  await adapter('AccessToken').upsert('t2', { grantId: 'g2' }, 60);
  await adapter('Grant').upsert('g1', { accountId: 'a' }, 60);
  await adapter('AccessToken').revokeByGrantId('g1');
  assert.equal(await adapter('AuthorizationCode').find('c1'), undefined);
  assert.equal(await adapter('AccessToken').find('t1'), undefined);
  assert.ok(await adapter('AccessToken').find('t2'));
  assert.ok(await adapter('Grant').find('g1'), 'the grant itself is destroyed by oidc-provider');
});
