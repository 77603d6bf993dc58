import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createNoneSigner } from './none-signer.ts';
import { request } from './test-support.ts';

test('none: lower-cases the headers and drops stray credential headers', async () => {
  const signer = createNoneSigner({ type: 'none' }, { env: {} });
  const headers = await signer.sign(
    request({ headers: { 'Content-Type': 'application/json', Authorization: 'Bearer x' } }),
  );
  assert.deepEqual(headers, { 'content-type': 'application/json' });
  assert.equal(signer.kind, 'none');
  await signer.close();
});
