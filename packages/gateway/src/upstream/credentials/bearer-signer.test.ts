import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createBearerSigner } from './bearer-signer.ts';
import { CredentialError } from './signer.ts';
import { request } from './test-support.ts';

test('bearer: sets Authorization and replaces any incoming one', async () => {
  const signer = createBearerSigner(
    { type: 'bearer', token: 'env:OPENAI_API_KEY' },
    { env: { OPENAI_API_KEY: 'sk-1' } },
  );
  const headers = await signer.sign(
    request({ headers: { Authorization: 'Bearer caller', 'X-Api-Key': 'caller' } }),
  );
  assert.deepEqual(headers, { authorization: 'Bearer sk-1' });
  assert.equal(signer.kind, 'bearer');
});

test('bearer: a missing token fails at creation, naming the location', () => {
  assert.throws(
    () => createBearerSigner({ type: 'bearer', token: 'path:/nonexistent/token' }, { env: {} }),
    (error: unknown) => error instanceof CredentialError && /path:\/nonexistent\/token/.test(error.message),
  );
});
