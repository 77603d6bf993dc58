import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { bearer, startTestApp, type TestApp } from './test-app.ts';
import { seedAccount } from './testing.ts';

interface ErrorBody {
  error: { code: string; message: string; type: string };
}

async function call(t: TestApp, token: string, remoteAddress: string, forwardedFor?: string) {
  const headers = { ...bearer(token), ...(forwardedFor ? { 'x-forwarded-for': forwardedFor } : {}) };
  const response = await t.app.inject({ url: '/v1/account', headers, remoteAddress });
  return { status: response.statusCode, body: response.json() as ErrorBody };
}

// The IP rules do not touch the database engine, so SQLite alone covers them.
describe('global IP allowlist with trusted proxies, over HTTP', () => {
  let t: TestApp;
  let token: string;
  before(async () => {
    t = await startTestApp('sqlite', {
      ipAllow: ['10.0.0.0/8,2001:db8::/32'],
      trustedProxies: ['127.0.0.1/32'],
    });
    ({ token } = await seedAccount(t.database, {
      email: 'ip@example.com',
      projectSlug: 'ip',
      allocations: { developer: 1 },
      config: t.config,
    }));
  });
  after(() => t.close());

  it('allows IPv4 and IPv6 clients inside the allowlist, and IPv4-mapped IPv6 as IPv4', async () => {
    assert.equal((await call(t, token, '10.20.30.40')).status, 200);
    assert.equal((await call(t, token, '2001:db8::7')).status, 200);
    assert.equal((await call(t, token, '::ffff:10.20.30.40')).status, 200);
  });

  it('blocks an IPv4 client outside it with 403 gateway_ip_not_allowed naming the address', async () => {
    const { status, body } = await call(t, token, '192.0.2.44');
    assert.equal(status, 403);
    assert.equal(body.error.code, 'gateway_ip_not_allowed');
    assert.equal(body.error.type, 'permission_error');
    assert.match(
      body.error.message,
      /Requests from 192\.0\.2\.44 are not allowed by the gateway's IP allowlist/,
    );
    assert.doesNotMatch(body.error.message, /IPv6/);
  });

  it('blocks ::1 and explains the IPv6 connection and both fixes', async () => {
    const { status, body } = await call(t, token, '::1');
    assert.equal(status, 403);
    assert.match(body.error.message, /Requests from ::1 are not allowed/);
    assert.match(body.error.message, /connected over IPv6/);
    assert.match(body.error.message, /::1\/128/);
    assert.match(body.error.message, /curl -4/);
  });

  it('blocks before looking at the token', async () => {
    const { status } = await call(t, 'not-a-token', '192.0.2.44');
    assert.equal(status, 403);
  });

  it('honours X-Forwarded-For from a trusted proxy', async () => {
    assert.equal((await call(t, token, '127.0.0.1', '10.1.1.1')).status, 200);
    const blocked = await call(t, token, '127.0.0.1', '10.1.1.1, 192.0.2.99');
    assert.equal(blocked.status, 403);
    assert.match(blocked.body.error.message, /192\.0\.2\.99/);
  });

  it('ignores X-Forwarded-For from an untrusted peer', async () => {
    const { status, body } = await call(t, token, '192.0.2.50', '10.1.1.1');
    assert.equal(status, 403);
    assert.match(body.error.message, /Requests from 192\.0\.2\.50 /);
  });
});

describe('project IP allowlist, over HTTP', () => {
  let t: TestApp;
  before(async () => {
    t = await startTestApp('sqlite');
  });
  after(() => t.close());

  it('applies the project list to its tokens only and names the project', async () => {
    const limited = await seedAccount(t.database, {
      email: 'lab@example.com',
      projectSlug: 'lab',
      allocations: { cloud_a: 1 },
      ipAllow: ['198.51.100.0/24', '::1'],
      config: t.config,
    });
    const open = await seedAccount(t.database, {
      email: 'open@example.com',
      projectSlug: 'open',
      allocations: { cloud_a: 1 },
      config: t.config,
    });
    assert.equal((await call(t, limited.token, '198.51.100.20')).status, 200);
    assert.equal((await call(t, limited.token, '::1')).status, 200);
    const blocked = await call(t, limited.token, '127.0.0.1');
    assert.equal(blocked.status, 403);
    assert.match(blocked.body.error.message, /IP allowlist of project 'lab'/);
    const v6 = await call(t, limited.token, '2001:db8::1');
    assert.match(v6.body.error.message, /connected over IPv6/);
    assert.equal((await call(t, open.token, '127.0.0.1')).status, 200);
  });
});
