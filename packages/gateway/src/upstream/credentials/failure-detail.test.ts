import assert from 'node:assert/strict';
import { test } from 'node:test';
import { failureDetail } from './failure-detail.ts';

test('keeps only statuses and short codes from library errors', () => {
  const gaxiosLike = Object.assign(new Error('invalid_grant: assertion eyJhbGciOi.secret'), {
    response: {
      status: 400,
      data: { error: 'invalid_grant', error_description: 'assertion eyJhbGciOi.secret' },
    },
    config: { data: 'assertion=eyJhbGciOi.secret' },
  });
  assert.equal(failureDetail(gaxiosLike), ' (HTTP 400, invalid_grant)');
  const msalWrapped = Object.assign(new Error('client_secret=hunter2'), {
    name: 'AuthenticationRequiredError',
    cause: { status: 401, errorCode: 'invalid_client' },
  });
  assert.equal(failureDetail(msalWrapped), ' (HTTP 401, invalid_client)');
  assert.equal(
    failureDetail(Object.assign(new Error('connect'), { code: 'ECONNREFUSED' })),
    ' (ECONNREFUSED)',
  );
  assert.equal(failureDetail({ response: { data: { error: 'has spaces and a secret' } } }), '');
  assert.equal(failureDetail('plain string'), '');
});
