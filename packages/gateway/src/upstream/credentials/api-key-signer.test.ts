import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createApiKeySigner } from './api-key-signer.ts';
import { CredentialError } from './signer.ts';
import { request } from './test-support.ts';

test('api-key: adds the configured header, never next to an Authorization header', async () => {
  const signer = createApiKeySigner(
    { type: 'api-key', header: 'api-key', key: 'env:AZURE_KEY' },
    { env: { AZURE_KEY: 'az-123' } },
  );
  const headers = await signer.sign(
    request({ headers: { 'Content-Type': 'application/json', authorization: 'Bearer client' } }),
  );
  assert.deepEqual(headers, { 'content-type': 'application/json', 'api-key': 'az-123' });
});

test('api-key: each provider header', async () => {
  for (const header of ['x-api-key', 'x-goog-api-key'] as const) {
    const signer = createApiKeySigner({ type: 'api-key', header, key: 'env:K' }, { env: { K: 'v' } });
    assert.equal((await signer.sign(request()))[header], 'v');
  }
});

test('api-key: a missing key fails at creation, naming the location', () => {
  assert.throws(
    () =>
      createApiKeySigner({ type: 'api-key', header: 'x-api-key', key: 'env:ANTHROPIC_API_KEY' }, { env: {} }),
    (error: unknown) => error instanceof CredentialError && /env:ANTHROPIC_API_KEY/.test(error.message),
  );
});
