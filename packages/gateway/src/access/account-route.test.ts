import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startTestApp, type TestApp } from './test-app.ts';

describe('GET /v1/account in the OpenAPI document', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp('sqlite');
  });
  after(() => t.close());

  it('is documented with bearerAuth security and its response schema', async () => {
    const spec = (await t.app.inject({ url: '/openapi.json' })).json() as {
      paths: Record<string, Record<string, { security?: unknown; responses: Record<string, unknown> }>>;
      components: { securitySchemes: Record<string, unknown> };
    };
    const operation = spec.paths['/v1/account']?.get;
    assert.ok(operation, '/v1/account is in the document');
    assert.deepEqual(operation.security, [{ bearerAuth: [] }]);
    assert.ok(spec.components.securitySchemes.bearerAuth);
    const ok = JSON.stringify(operation.responses['200']);
    for (const field of ['allocations', 'remaining', 'expires_at', 'cloud_c'])
      assert.ok(ok.includes(field), field);
    assert.ok(operation.responses['401'] && operation.responses['403']);
  });
});
