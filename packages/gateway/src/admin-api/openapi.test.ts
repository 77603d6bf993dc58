/**
 * The admin API in the gateway's OpenAPI document: every route under /admin/v1 with its
 * security scheme and scope, its error codes from the catalogue, and none of them on the model
 * API's routes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ADMIN_API_ERROR_CODES } from '../errors.ts';
import { type AdminTestApp, startAdminApp } from './testing.ts';

interface Operation {
  readonly tags?: readonly string[];
  readonly security?: ReadonlyArray<Record<string, string[]>>;
  readonly responses: Record<string, { content?: Record<string, { examples?: Record<string, unknown> }> }>;
}
interface Document {
  readonly paths: Record<string, Record<string, Operation>>;
  readonly components: {
    securitySchemes: Record<string, { type: string; scheme: string; description: string }>;
  };
}

/** Every operation of the admin API as documented: the resource design of docs/gateway/admin-api.md. */
const ADMIN_OPERATIONS = [
  'get /admin/v1/users',
  'post /admin/v1/users',
  'get /admin/v1/users/{email}',
  'get /admin/v1/projects',
  'post /admin/v1/projects',
  'get /admin/v1/projects/{slug}',
  'put /admin/v1/projects/{slug}/ip-allow',
  'get /admin/v1/projects/{slug}/members',
  'post /admin/v1/projects/{slug}/members',
  'get /admin/v1/projects/{slug}/members/{email}',
  'post /admin/v1/projects/{slug}/members/{email}/approve',
  'post /admin/v1/projects/{slug}/members/{email}/revoke',
  'put /admin/v1/projects/{slug}/allocations/{provider}',
  'get /admin/v1/projects/{slug}/limits',
  'put /admin/v1/projects/{slug}/limits/{scope}',
  'get /admin/v1/projects/{slug}/usage',
  'post /admin/v1/tokens',
  'get /admin/v1/tokens',
  'get /admin/v1/tokens/{id}',
  'delete /admin/v1/tokens/{id}',
  'get /admin/v1/audit',
];

describe('the admin API in /openapi.json', () => {
  let t: AdminTestApp;
  let doc: Document;
  before(async () => {
    t = await startAdminApp('sqlite');
    doc = (await t.app.inject({ url: '/openapi.json' })).json() as Document;
  });
  after(() => t.close());

  const operations = () =>
    Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.entries(methods).map(([method, operation]) => ({
        key: `${method} ${path}`,
        method,
        path,
        operation,
      })),
    );

  it('lists every route under /admin/v1, tagged admin', () => {
    const admin = operations().filter((op) => op.path.startsWith('/admin/'));
    assert.deepEqual(admin.map((op) => op.key).sort(), [...ADMIN_OPERATIONS].sort());
    for (const { key, operation } of admin) assert.deepEqual(operation.tags, ['admin'], key);
  });

  it('declares the admin key scheme, with the scope of each route: read for GET, write otherwise', () => {
    const scheme = doc.components.securitySchemes.adminKey;
    assert.equal(scheme?.type, 'http');
    assert.equal(scheme?.scheme, 'bearer');
    assert.match(scheme?.description ?? '', /gatewayctl admin-keys create/);
    for (const { key, method, path, operation } of operations()) {
      if (!path.startsWith('/admin/')) {
        assert.ok(!JSON.stringify(operation.security ?? []).includes('adminKey'), key);
        continue;
      }
      assert.deepEqual(operation.security, [{ adminKey: [method === 'get' ? 'read' : 'write'] }], key);
    }
  });

  it("documents the admin API's error codes on its routes and on no route of the model API", () => {
    const codesOf = (operation: Operation) =>
      Object.values(operation.responses).flatMap((response) =>
        Object.keys(response.content?.['application/json']?.examples ?? {}),
      );
    const admin = new Set(
      operations()
        .filter((op) => op.path.startsWith('/admin/'))
        .flatMap((op) => codesOf(op.operation)),
    );
    assert.deepEqual(
      ADMIN_API_ERROR_CODES.filter((code) => !admin.has(code)),
      [],
      'every admin code on some admin route',
    );
    for (const { key, path, operation } of operations())
      if (path.startsWith('/v1/'))
        assert.deepEqual(
          codesOf(operation).filter((code) => ADMIN_API_ERROR_CODES.includes(code)),
          [],
          key,
        );
  });
});
