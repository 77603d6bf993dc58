/**
 * Who may call /admin/v1: an admin key that exists, is neither expired nor revoked and has the
 * scope of the route, from an address the IP allowlists admit. A personal access token never
 * works here, and an admin key never works on /v1.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testEngines } from '@app/db/testing.ts';
import { revokeAdminKey } from '../access/admin-keys.ts';
import { bearer, startSecondInstance } from '../access/test-app.ts';
import { seedAccount } from '../access/testing.ts';
import { type AdminTestApp, type ErrorBody, refusal, startAdminApp } from './testing.ts';

for (const { engine, skip } of testEngines())
  describe(`admin API authentication (${engine})`, { skip }, () => {
    let t: AdminTestApp;
    let key: string;
    let pat: string;
    before(async () => {
      t = await startAdminApp(engine);
      ({ key } = await t.newKey());
      ({ token: pat } = await seedAccount(t.database, {
        email: 'member@example.com',
        projectSlug: 'auth',
        allocations: { developer: 1 },
        config: t.config,
      }));
    });
    after(() => t.close());

    it('answers a valid key and records when it was last used', async () => {
      const { key: fresh, id } = await t.newKey(['read']);
      const response = await t.call(fresh, 'GET', '/projects');
      assert.equal(response.statusCode, 200);
      assert.deepEqual(
        (response.json() as { data: { slug: string }[] }).data.map((p) => p.slug),
        ['auth'],
      );
      const row = await t.database.db
        .selectFrom('admin_keys')
        .select('last_used_at')
        .where('id', '=', id)
        .executeTakeFirstOrThrow();
      assert.ok(row.last_used_at, 'last_used_at is set');
    });

    it('refuses a request without a key: 401 admin_key_missing, saying how to get a key (not a PAT)', async () => {
      const response = await t.call(undefined, 'GET', '/users');
      assert.equal(refusal(response), '401 admin_key_missing');
      const { message, type } = (response.json() as ErrorBody).error;
      assert.equal(type, 'authentication_error');
      assert.match(message, /gatewayctl admin-keys create/);
      assert.doesNotMatch(message, /personal access token/);
    });

    it('refuses a malformed header and an unknown key: 401 admin_key_invalid with the reason', async () => {
      const basic = await t.app.inject({
        url: '/admin/v1/users',
        headers: { authorization: `Basic ${key}` },
      });
      assert.equal(refusal(basic), '401 admin_key_invalid');
      assert.match((basic.json() as ErrorBody).error.message, /not "Bearer <admin key>"/);
      const unknown = await t.call(`${key.slice(0, -4)}AAAA`, 'GET', '/users');
      assert.equal(refusal(unknown), '401 admin_key_invalid');
      assert.match((unknown.json() as ErrorBody).error.message, /unknown admin key/);
      const junk = await t.call('not-a-key', 'GET', '/users');
      assert.match((junk.json() as ErrorBody).error.message, /admin keys start with gwadm_/);
    });

    it('refuses a personal access token on /admin/v1, naming it', async () => {
      assert.equal((await t.app.inject({ url: '/v1/account', headers: bearer(pat) })).statusCode, 200);
      const response = await t.call(pat, 'GET', '/users');
      assert.equal(refusal(response), '401 admin_key_invalid');
      assert.match(
        (response.json() as ErrorBody).error.message,
        /a personal access token is a credential of \/v1/,
      );
    });

    it('refuses an admin key on /v1, in the Authorization header and in x-api-key', async () => {
      for (const headers of [bearer(key), { 'x-api-key': key }]) {
        const response = await t.app.inject({ url: '/v1/models', headers });
        assert.equal(refusal(response), '401 gateway_invalid_token');
        assert.match(
          (response.json() as ErrorBody).error.message,
          /an admin key is a credential of the admin API/,
        );
      }
    });

    it('refuses an expired key: 401 admin_key_expired with the expiry', async () => {
      const { key: old, id } = await t.newKey();
      const expiredAt = '2020-01-01T00:00:00.000Z';
      await t.database.db
        .updateTable('admin_keys')
        .set({ expires_at: expiredAt })
        .where('id', '=', id)
        .execute();
      const response = await t.call(old, 'GET', '/users');
      assert.equal(refusal(response), '401 admin_key_expired');
      assert.match(
        (response.json() as ErrorBody).error.message,
        new RegExp(expiredAt.replaceAll('.', '\\.')),
      );
    });

    it('refuses a revoked key from its next request on, on every instance (no cache to wait for)', async () => {
      const { key: doomed, id } = await t.newKey();
      const second = await startSecondInstance(t);
      try {
        const onSecond = () =>
          second.app.inject({ url: '/admin/v1/users', headers: { authorization: `Bearer ${doomed}` } });
        assert.equal((await t.call(doomed, 'GET', '/users')).statusCode, 200);
        assert.equal((await onSecond()).statusCode, 200);
        await revokeAdminKey(t.database.db, id);
        const here = await t.call(doomed, 'GET', '/users');
        assert.equal(refusal(here), '401 admin_key_invalid');
        assert.match((here.json() as ErrorBody).error.message, new RegExp(`admin key ${id} was revoked`));
        assert.equal(refusal(await onSecond()), '401 admin_key_invalid');
      } finally {
        await second.close();
      }
    });

    it('enforces scopes per route: read for GET, write for the rest (403 admin_scope_missing)', async () => {
      const { key: reader } = await t.newKey(['read']);
      const { key: writer } = await t.newKey(['write']);
      assert.equal((await t.call(reader, 'GET', '/users')).statusCode, 200);
      const write = await t.call(reader, 'POST', '/users', { email: 'reader@example.com' });
      assert.equal(refusal(write), '403 admin_scope_missing');
      assert.equal((write.json() as ErrorBody).error.type, 'permission_error');
      assert.match(
        (write.json() as ErrorBody).error.message,
        /has the scopes read; this request needs 'write'/,
      );
      assert.equal(refusal(await t.call(reader, 'DELETE', '/tokens/x')), '403 admin_scope_missing');
      assert.equal(
        refusal(await t.call(reader, 'PUT', '/projects/auth/limits/project', {})),
        '403 admin_scope_missing',
      );
      assert.equal(refusal(await t.call(writer, 'GET', '/users')), '403 admin_scope_missing');
      assert.equal((await t.call(writer, 'POST', '/users', { email: 'writer@example.com' })).statusCode, 201);
      const users = await t.call(key, 'GET', '/users');
      const emails = (users.json() as { data: { email: string }[] }).data.map((u) => u.email);
      assert.ok(emails.includes('writer@example.com') && !emails.includes('reader@example.com'));
    });

    it('authenticates before it reads the body: no key and a bad body is a 401, not a 400', async () => {
      const response = await t.call(undefined, 'POST', '/users', { nonsense: true });
      assert.equal(refusal(response), '401 admin_key_missing');
    });
  });

describe('admin API behind the IP allowlists', () => {
  let t: AdminTestApp;
  let key: string;
  let pat: string;
  before(async () => {
    t = await startAdminApp('sqlite', { ipAllow: ['10.0.0.0/8'], adminIpAllow: ['10.1.0.0/16'] });
    ({ key } = await t.newKey());
    ({ token: pat } = await seedAccount(t.database, {
      email: 'ip@example.com',
      projectSlug: 'ip',
      allocations: { developer: 1 },
      config: t.config,
    }));
  });
  after(() => t.close());

  it('refuses a valid key from outside the global allowlist: 403 gateway_ip_not_allowed', async () => {
    const response = await t.call(key, 'GET', '/users', undefined, '192.0.2.8');
    assert.equal(refusal(response), '403 gateway_ip_not_allowed');
    assert.match(
      (response.json() as ErrorBody).error.message,
      /192\.0\.2\.8 are not allowed by the gateway's IP allowlist/,
    );
    // Before the key is looked at: no key from outside is refused for the address too.
    assert.equal(
      refusal(await t.call(undefined, 'GET', '/users', undefined, '192.0.2.8')),
      '403 gateway_ip_not_allowed',
    );
  });

  it('refuses an address the gateway admits but GATEWAY_ADMIN_IP_ALLOW does not, on /admin/v1 only', async () => {
    const response = await t.call(key, 'GET', '/users', undefined, '10.2.0.1');
    assert.equal(refusal(response), '403 gateway_ip_not_allowed');
    assert.match(
      (response.json() as ErrorBody).error.message,
      /10\.2\.0\.1 are not allowed by the admin API's IP allowlist/,
    );
    const model = await t.app.inject({ url: '/v1/account', headers: bearer(pat), remoteAddress: '10.2.0.1' });
    assert.equal(model.statusCode, 200);
  });

  it('answers a key from inside both allowlists', async () => {
    assert.equal((await t.call(key, 'GET', '/users', undefined, '10.1.2.3')).statusCode, 200);
  });
});
