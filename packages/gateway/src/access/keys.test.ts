import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { calculateJwkThumbprint, exportJWK, generateKeyPair } from 'jose';
import { loadSigningKeys, signingKeyLocation } from './keys.ts';
import { signToken, verifyToken } from './tokens.ts';

const dir = mkdtempSync(join(tmpdir(), 'gw-keys-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const issue = (keys: Awaited<ReturnType<typeof loadSigningKeys>>, seconds = 60) =>
  signToken(keys, {
    userId: 7,
    projectSlug: 'p',
    issuedAt: new Date(),
    expiresAt: new Date(Date.now() + seconds * 1000),
  });

async function es256Jwk() {
  const { privateKey } = await generateKeyPair('ES256', { extractable: true });
  const jwk = await exportJWK(privateKey);
  return { ...jwk, kid: (await calculateJwkThumbprint(jwk)).slice(0, 16), alg: 'ES256' };
}

describe('signing keys', () => {
  it('generates an Ed25519 key set once in the data directory, readable only by the owner', async () => {
    const location = signingKeyLocation(join(dir, 'data'), undefined);
    const [a, b] = await Promise.all([loadSigningKeys(location), loadSigningKeys(location)]);
    assert.equal(a.current.kid, b.current.kid, 'concurrent first starts agree on one key');
    assert.equal(a.current.alg, 'EdDSA');
    assert.equal(statSync(location.path).mode & 0o777, 0o600);
    const { token } = await issue(a);
    const verified = await verifyToken(b, token);
    assert.ok(verified.ok);
    assert.deepEqual(JSON.parse(Buffer.from(token.split('.')[0] ?? '', 'base64url').toString()), {
      alg: 'EdDSA',
      kid: a.current.kid,
      typ: 'JWT',
    });
  });

  it('never generates a configured key file, and rejects an unusable one', async () => {
    await assert.rejects(
      loadSigningKeys(signingKeyLocation(dir, join(dir, 'missing.json'))),
      /missing\.json \(access\.signingKeyPath, GATEWAY_SIGNING_KEY_PATH\) does not exist/,
    );
    const bad = join(dir, 'bad.json');
    writeFileSync(bad, JSON.stringify({ keys: [{ kty: 'oct', k: 'abc', kid: 'x', alg: 'HS256' }] }));
    await assert.rejects(loadSigningKeys(signingKeyLocation(dir, bad)), /alg EdDSA or ES256/);
  });

  it('keeps tokens of a rotated-out signing key valid while the key stays in the set', async () => {
    const path = join(dir, 'rotating.json');
    const old = await es256Jwk();
    writeFileSync(path, JSON.stringify({ keys: [old] }));
    const before = await loadSigningKeys(signingKeyLocation(dir, path));
    assert.equal(before.current.alg, 'ES256');
    const { token } = await issue(before);
    const fresh = await es256Jwk();
    writeFileSync(path, JSON.stringify({ keys: [fresh, old] }));
    const rotated = await loadSigningKeys(signingKeyLocation(dir, path));
    assert.equal(rotated.current.kid, fresh.kid);
    assert.ok((await verifyToken(rotated, token)).ok, 'old token still verifies');
    writeFileSync(path, JSON.stringify({ keys: [fresh] }));
    const retired = await loadSigningKeys(signingKeyLocation(dir, path));
    assert.deepEqual(await verifyToken(retired, token), { ok: false, reason: 'signed with an unknown key' });
  });

  it('reports an expired token with its expiry and other failures as reasons', async () => {
    const keys = await loadSigningKeys(signingKeyLocation(join(dir, 'data'), undefined));
    const { token } = await issue(keys, -5);
    const expired = await verifyToken(keys, token);
    assert.equal(expired.ok, false);
    assert.ok(!expired.ok && expired.expiredAt instanceof Date);
    assert.deepEqual(await verifyToken(keys, 'abc'), { ok: false, reason: 'not a well-formed token' });
  });
});
