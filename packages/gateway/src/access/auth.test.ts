import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { testEngines } from '@app/db/testing.ts';
import { revokeMembership, revokeToken } from './admin.ts';
import { bearer, startSecondInstance, startTestApp, type TestApp } from './test-app.ts';
import { seedAccount } from './testing.ts';

function errorOf(body: string): { code: string; message: string; type: string } {
  return (JSON.parse(body) as { error: { code: string; message: string; type: string } }).error;
}

for (const { engine, skip } of testEngines()) {
  describe(`personal access tokens over HTTP on ${engine}`, { skip }, () => {
    let t: TestApp;
    before(async () => {
      t = await startTestApp(engine, { revocationCacheMs: 1000 });
    });
    after(() => t.close());

    const seed = (email: string, extra: { ttl?: string; projectSlug?: string } = {}) =>
      seedAccount(t.database, {
        email,
        projectSlug: extra.projectSlug ?? `p-${email.split('@')[0]}`,
        allocations: { developer: 25, cloud_b: 10 },
        config: t.config,
        ...(extra.ttl ? { ttl: extra.ttl } : {}),
      });

    it('accepts a valid token and GET /v1/account describes the caller', async () => {
      const { token, principal } = await seed('valid@example.com');
      const response = await t.app.inject({ url: '/v1/account', headers: bearer(token) });
      assert.equal(response.statusCode, 200);
      assert.deepEqual(response.json(), {
        object: 'account',
        user: { id: principal.userId, email: 'valid@example.com' },
        project: { id: principal.projectId, slug: 'p-valid' },
        token: { id: principal.tokenId, expires_at: principal.tokenExpiresAt.toISOString() },
        allocations: [
          { provider: 'developer', allocated: 25, spent: 0, reserved: 0, remaining: 25 },
          { provider: 'cloud_b', allocated: 10, spent: 0, reserved: 0, remaining: 10 },
        ],
      });
    });

    it('answers 401 missing_token without an Authorization header, naming how to get one', async () => {
      const response = await t.app.inject({ url: '/v1/account' });
      assert.equal(response.statusCode, 401);
      const error = errorOf(response.body);
      assert.equal(error.code, 'missing_token');
      assert.equal(error.type, 'authentication_error');
      assert.match(error.message, /personal access token .*(account dashboard|gatewayctl tokens issue)/);
    });

    it('takes the token from x-api-key (Anthropic clients) when no Authorization header comes', async () => {
      const { token } = await seed('apikey@example.com');
      const accepted = await t.app.inject({ url: '/v1/account', headers: { 'x-api-key': token } });
      assert.equal(accepted.statusCode, 200);
      const garbage = await t.app.inject({ url: '/v1/account', headers: { 'x-api-key': 'not.a.jwt' } });
      assert.equal(garbage.statusCode, 401);
      assert.equal(errorOf(garbage.body).code, 'gateway_invalid_token');
      // Authorization wins: a bad bearer is refused even beside a good key.
      const both = await t.app.inject({
        url: '/v1/account',
        headers: { 'x-api-key': token, authorization: 'Bearer abc' },
      });
      assert.equal(both.statusCode, 401);
    });

    it('refuses a non-Bearer Authorization header and garbage tokens', async () => {
      for (const authorization of ['Basic dXNlcjpwYXNz', 'Bearer not.a.jwt', 'Bearer abc']) {
        const response = await t.app.inject({ url: '/v1/account', headers: { authorization } });
        assert.equal(response.statusCode, 401, authorization);
        assert.equal(errorOf(response.body).code, 'gateway_invalid_token');
      }
    });

    it('refuses a token whose signature or payload was tampered with', async () => {
      const { token } = await seed('tamper@example.com');
      const [header, payload, signature] = token.split('.') as [string, string, string];
      const flipped = `${signature.slice(0, -2)}${signature.endsWith('AA') ? 'BB' : 'AA'}`;
      const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
      const forged = Buffer.from(JSON.stringify({ ...claims, project: 'p-valid' })).toString('base64url');
      for (const bad of [`${header}.${payload}.${flipped}`, `${header}.${forged}.${signature}`]) {
        const response = await t.app.inject({ url: '/v1/account', headers: bearer(bad) });
        assert.equal(response.statusCode, 401);
        const error = errorOf(response.body);
        assert.equal(error.code, 'gateway_invalid_token');
        assert.match(error.message, /bad signature/);
      }
    });

    it('answers 401 gateway_token_expired once a short-lived token has expired', async () => {
      // Token times have whole seconds: a 1 s token issued late in a second can be expired by
      // the first request on a slow machine, so it lives 3 s and the test waits for its end.
      const { token, principal } = await seed('short@example.com', { ttl: '3s' });
      assert.equal((await t.app.inject({ url: '/v1/account', headers: bearer(token) })).statusCode, 200);
      await sleep(principal.tokenExpiresAt.getTime() - Date.now() + 100);
      const response = await t.app.inject({ url: '/v1/account', headers: bearer(token) });
      assert.equal(response.statusCode, 401);
      const error = errorOf(response.body);
      assert.equal(error.code, 'gateway_token_expired');
      assert.match(error.message, /expired at 20\d\d-.*(account dashboard|gatewayctl tokens issue)/);
    });

    it('sees a revoked token refused within one second, also on a second instance', async () => {
      const { token, principal } = await seed('revoked@example.com');
      const other = await startSecondInstance(t);
      try {
        for (const app of [t.app, other.app])
          assert.equal((await app.inject({ url: '/v1/account', headers: bearer(token) })).statusCode, 200);
        await revokeToken(t.database.db, principal.tokenId);
        // Both cached answers were loaded before the revocation and live 1000 ms: a request that
        // starts a second after it must be refused, however slow the machine. Timing when the
        // refusal came instead (it once had to come within 1100 ms) fails when a loaded machine
        // spends over 100 ms in one request, as the revocation-bus test did.
        await sleep(1005);
        for (const app of [t.app, other.app]) {
          const response = await app.inject({ url: '/v1/account', headers: bearer(token) });
          assert.equal(response.statusCode, 401);
          assert.match(errorOf(response.body).message, /revoked/);
        }
      } finally {
        await other.close();
      }
    });

    it('refuses the token of a member whose membership was revoked', async () => {
      const { token } = await seed('member@example.com', { projectSlug: 'shared' });
      assert.equal((await t.app.inject({ url: '/v1/account', headers: bearer(token) })).statusCode, 200);
      await revokeMembership(t.database.db, { slug: 'shared', email: 'member@example.com' });
      await sleep(1050);
      const response = await t.app.inject({ url: '/v1/account', headers: bearer(token) });
      // Not "generate a new token": a revoked member cannot; the answer says what happened.
      assert.equal(response.statusCode, 403);
      const error = errorOf(response.body);
      assert.equal(error.code, 'gateway_membership_inactive');
      assert.equal(error.type, 'permission_error');
      assert.match(error.message, /membership of project 'shared' was revoked by a project admin/);
      assert.doesNotMatch(error.message, /Generate|gatewayctl tokens issue/);
    });

    it('records last use at most once per interval', async () => {
      const { token, principal } = await seed('lastuse@example.com');
      const lastUsed = () =>
        t.database.db
          .selectFrom('access_tokens')
          .select('last_used_at')
          .where('jti', '=', principal.tokenId)
          .executeTakeFirstOrThrow();
      await t.app.inject({ url: '/v1/account', headers: bearer(token) });
      await sleep(50);
      const first = (await lastUsed()).last_used_at;
      assert.ok(first !== null, 'last_used_at written on first use');
      await t.database.db.updateTable('access_tokens').set({ last_used_at: null }).execute();
      await t.app.inject({ url: '/v1/account', headers: bearer(token) });
      await sleep(50);
      assert.equal((await lastUsed()).last_used_at, null, 'no second write within the interval');
    });
  });
}
