import assert from 'node:assert/strict';
import { test } from 'node:test';
import { hashPassword, verifyPassword } from './passwords.ts';
import { hashToken, newToken, tokenFromAuthorization } from './tokens.ts';

test('tokens are random and stored as their sha256', () => {
  const a = newToken();
  const b = newToken();
  assert.notEqual(a.token, b.token);
  assert.match(a.token, /^[A-Za-z0-9_-]{43}$/);
  assert.equal(a.hash, hashToken(a.token));
  assert.match(a.hash, /^[0-9a-f]{64}$/);
  assert.ok(!a.hash.includes(a.token));
});

test('Authorization header forms', () => {
  assert.equal(tokenFromAuthorization('Token token=abc123'), 'abc123');
  assert.equal(tokenFromAuthorization('Token token="abc123", nonce="x"'), 'abc123');
  assert.equal(tokenFromAuthorization('Bearer abc123'), 'abc123');
  assert.equal(tokenFromAuthorization('bearer abc123'), 'abc123');
  assert.equal(tokenFromAuthorization('Basic dXNlcjpwYXNz'), undefined);
  assert.equal(tokenFromAuthorization(undefined), undefined);
});

test('passwords: scrypt with a per-user salt, verified in constant time', async () => {
  const first = await hashPassword('correct horse');
  const second = await hashPassword('correct horse');
  assert.notEqual(first, second);
  assert.match(first, /^scrypt\$16384\$8\$1\$/);
  assert.equal(await verifyPassword('correct horse', first), true);
  assert.equal(await verifyPassword('correct horse!', first), false);
  assert.equal(await verifyPassword('correct horse', 'md5$abc'), false);
});
