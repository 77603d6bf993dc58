import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { testEngines } from '@app/db/testing.ts';
import { TOKENS_PER_USER } from '../repositories/users.ts';
import { hashToken } from './tokens.ts';
import { energyHarness, type Harness } from '../testing/harness.ts';

const UNAUTHORIZED = {
  error: {
    code: 'unauthorized',
    message: 'Unauthorized - ensure token is being passed with each service call.',
  },
};

for (const { engine, skip } of testEngines()) {
  describe(`authentication (${engine})`, { skip }, () => {
    let h: Harness;
    let token: string;
    let userId: number;
    before(async () => {
      h = await energyHarness(engine);
      ({ token, userId } = await h.user('owner@example.com'));
    });
    after(() => h?.close());

    test('no token or a wrong one: 401 with the reference message, in the requested format', async () => {
      const missing = await h.app.inject({ url: '/api/v1/fan_controls' });
      assert.equal(missing.statusCode, 401);
      assert.deepEqual(missing.json(), UNAUTHORIZED);
      const wrong = await h.app.inject({ url: '/api/v1/fan_controls.xml?token=nope' });
      assert.equal(wrong.statusCode, 401);
      assert.equal(
        wrong.body,
        '<?xml version="1.0" encoding="UTF-8"?>\n<error>\n  <code>unauthorized</code>\n' +
          '  <message>Unauthorized - ensure token is being passed with each service call.</message>\n</error>\n',
      );
      const basic = await h.app.inject({
        url: '/api/v1/fan_controls',
        headers: { authorization: `Basic ${token}` },
      });
      assert.equal(basic.statusCode, 401);
    });

    test('the token in the query, the body (JSON, form, XML) or the Authorization header', async () => {
      const ok = [
        { method: 'GET', url: `/api/v1/buildings?token=${token}` },
        { method: 'GET', url: '/api/v1/buildings', headers: { authorization: `Token token=${token}` } },
        { method: 'GET', url: '/api/v1/buildings', headers: { authorization: `Token token="${token}"` } },
        { method: 'GET', url: '/api/v1/buildings', headers: { authorization: `Bearer ${token}` } },
        { method: 'POST', url: '/api/v1/buildings', payload: { token, name: 'JSON body' } },
        { method: 'POST', url: '/api/v1/buildings', payload: { token, building: { name: 'Wrapped JSON' } } },
        {
          method: 'POST',
          url: '/api/v1/buildings',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          payload: `token=${encodeURIComponent(token)}&building%5Bname%5D=Form`,
        },
        {
          method: 'POST',
          url: '/api/v1/buildings',
          headers: { 'content-type': 'application/xml' },
          payload: `<building><token>${token}</token><name>XML body</name></building>`,
        },
      ] as const;
      for (const request of ok) {
        const response = await h.app.inject(request);
        assert.ok([200, 201].includes(response.statusCode), `${JSON.stringify(request)}: ${response.body}`);
      }
    });

    test('the header is checked first: a wrong header is not rescued by a good query token', async () => {
      const response = await h.app.inject({
        url: `/api/v1/buildings?token=${token}`,
        headers: { authorization: 'Bearer wrong' },
      });
      assert.equal(response.statusCode, 401);
    });

    test('POST /users/authenticate exchanges email and password for a working token', async () => {
      const response = await h.app.inject({
        method: 'POST',
        url: '/api/v1/users/authenticate',
        payload: { email: 'Owner@Example.com', password: 'password123' },
      });
      assert.equal(response.statusCode, 200);
      const body = response.json();
      assert.deepEqual(Object.keys(body), ['user_id', 'token']);
      assert.equal(body.user_id, userId);
      assert.notEqual(body.token, token);
      const used = await h.app.inject({ url: `/api/v1/buildings?token=${body.token}` });
      assert.equal(used.statusCode, 200);
      const xml = await h.app.inject({
        method: 'POST',
        url: '/api/v1/users/authenticate.xml',
        headers: { 'content-type': 'application/xml' },
        payload: '<user><email>owner@example.com</email><password>password123</password></user>',
      });
      assert.equal(xml.statusCode, 200);
      assert.match(
        xml.body,
        new RegExp(
          `^<\\?xml version="1.0" encoding="UTF-8"\\?>\\n<hash>\\n  <user-id type="integer">${userId}</user-id>\\n  <token type="string">[A-Za-z0-9_-]{43}</token>\\n</hash>\\n$`,
        ),
      );
    });

    test('wrong password and unknown email are the same 401; missing fields 422', async () => {
      for (const payload of [
        { email: 'owner@example.com', password: 'wrong-password' },
        { email: 'nobody@example.com', password: 'password123' },
      ]) {
        const response = await h.app.inject({ method: 'POST', url: '/api/v1/users/authenticate', payload });
        assert.equal(response.statusCode, 401);
        assert.deepEqual(response.json(), {
          error: { code: 'invalid_credentials', message: 'Invalid email or password.' },
        });
      }
      const missing = await h.app.inject({
        method: 'POST',
        url: '/api/v1/users/authenticate',
        payload: { email: 'a@b.c' },
      });
      assert.equal(missing.statusCode, 422);
      assert.deepEqual(missing.json(), { errors: { password: ["can't be blank"] } });
    });

    test('tokens are stored only as hashes, and only the newest ten per user stay valid', async () => {
      const rows = await h.db.selectFrom('api_tokens').select('token_hash').execute();
      assert.ok(rows.length > 0);
      for (const row of rows) {
        assert.match(row.token_hash, /^[0-9a-f]{64}$/);
        assert.notEqual(row.token_hash, token);
      }
      const first = await h.user('rotating@example.com');
      // Used once first, so the token cache knows it: retiring it must reach the cache too.
      const used = await h.app.inject({ url: `/api/v1/buildings?token=${first.token}` });
      assert.equal(used.statusCode, 200);
      for (let index = 0; index < TOKENS_PER_USER; index++) {
        const response = await h.app.inject({
          method: 'POST',
          url: '/api/v1/users/authenticate',
          payload: { email: 'rotating@example.com', password: 'password123' },
        });
        assert.equal(response.statusCode, 200);
      }
      const retired = await h.app.inject({ url: `/api/v1/buildings?token=${first.token}` });
      assert.equal(retired.statusCode, 401, 'a token retired by this process is refused at once');
    });
  });

  describe(`token cache across processes (${engine})`, { skip }, () => {
    /** What another instance or energyctl does: the token's row goes, this process is not told. */
    async function retireElsewhere(h: Harness, token: string): Promise<void> {
      await h.db.deleteFrom('api_tokens').where('token_hash', '=', hashToken(token)).execute();
    }

    test('a token retired by another process is accepted until its cache entry expires', async () => {
      const h = await energyHarness(engine, { tokenCacheTtlMs: 60_000 });
      try {
        const { token } = await h.user();
        assert.equal((await h.app.inject({ url: `/api/v1/buildings?token=${token}` })).statusCode, 200);
        await retireElsewhere(h, token);
        const cached = await h.app.inject({ url: `/api/v1/buildings?token=${token}` });
        assert.equal(cached.statusCode, 200, 'within the TTL the cached entry answers');
      } finally {
        await h.close();
      }
    });

    test('with ENERGY_TOKEN_CACHE_TTL_MS=0 every call reads the database', async () => {
      const h = await energyHarness(engine, { tokenCacheTtlMs: 0 });
      try {
        const { token } = await h.user();
        assert.equal((await h.app.inject({ url: `/api/v1/buildings?token=${token}` })).statusCode, 200);
        await retireElsewhere(h, token);
        assert.equal((await h.app.inject({ url: `/api/v1/buildings?token=${token}` })).statusCode, 401);
      } finally {
        await h.close();
      }
    });
  });
}
