import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, redactUrl } from '@app/http-kit';
import { loadGatewayConfig } from '../config.ts';
import { dashboardEnabled, dashboardOff, devIdpEnabled } from './config.ts';
import { startDashboardApp } from './testing.ts';

const PG = 'postgres://gw@db.internal:5432/gateway';

test('the development provider runs on the embedded default only, unless switched explicitly', () => {
  const embedded = loadGatewayConfig({});
  assert.equal(devIdpEnabled(embedded), true);
  assert.equal(dashboardEnabled(embedded), true);
  const postgres = loadGatewayConfig({ GATEWAY_DATABASE_URL: PG });
  assert.equal(devIdpEnabled(postgres), false);
  assert.equal(dashboardEnabled(postgres), false, 'no identity provider: no dashboard');
  const forced = loadGatewayConfig({ GATEWAY_DATABASE_URL: PG, GATEWAY_DEV_IDP: 'on' });
  assert.equal(dashboardEnabled(forced), true);
  const off = loadGatewayConfig({ GATEWAY_DEV_IDP: 'off' });
  assert.equal(dashboardEnabled(off), false);
});

test('a real issuer replaces the development provider and needs a client id and secret location', () => {
  const real = loadGatewayConfig({
    GATEWAY_DATABASE_URL: PG,
    GATEWAY_OIDC_ISSUER: 'https://login.example.com/realms/main',
    GATEWAY_OIDC_CLIENT_ID: 'gateway',
    GATEWAY_OIDC_CLIENT_SECRET: 'env:OIDC_SECRET',
  });
  assert.equal(dashboardEnabled(real), true);
  assert.equal(devIdpEnabled(real), false);
  assert.throws(
    () => loadGatewayConfig({ GATEWAY_OIDC_ISSUER: 'https://login.example.com' }),
    (error: unknown) => error instanceof ConfigError && /GATEWAY_OIDC_CLIENT_ID/.test(error.message),
  );
  assert.throws(
    () =>
      loadGatewayConfig({
        GATEWAY_OIDC_ISSUER: 'https://login.example.com',
        GATEWAY_OIDC_CLIENT_ID: 'gateway',
        GATEWAY_OIDC_CLIENT_SECRET: 'the-secret-itself',
      }),
    (error: unknown) => error instanceof ConfigError && !error.message.includes('the-secret-itself'),
  );
  assert.equal(dashboardEnabled(loadGatewayConfig({ GATEWAY_DASHBOARD: 'false' })), false);
});

test('session durations: every length the setting parses is honoured, longer ones are refused at start-up by name', () => {
  const short = loadGatewayConfig({ GATEWAY_SESSION_IDLE_TIMEOUT: '1s', GATEWAY_SESSION_MAX_AGE: '36500d' });
  assert.equal(short.dashboard.sessionIdleTimeout, '1s');
  for (const [name, value] of [
    ['GATEWAY_SESSION_IDLE_TIMEOUT', '9999999999s'],
    ['GATEWAY_SESSION_IDLE_TIMEOUT', '36501d'],
    ['GATEWAY_SESSION_MAX_AGE', '999999999d'],
  ] as const)
    assert.throws(
      () => loadGatewayConfig({ [name]: value }),
      (error: unknown) => error instanceof ConfigError && error.message.includes(`${name}=${value}`),
      `${name}=${value}`,
    );
});

test("a sign-in callback's code and state never reach the request log", () => {
  assert.equal(
    redactUrl('/dashboard/callback?code=abc123&state=xyz&iss=http%3A%2F%2Fidp'),
    '/dashboard/callback?code=[redacted]&state=[redacted]&iss=http%3A%2F%2Fidp',
  );
});

test('says why the dashboard is off and what turns it on: on PostgreSQL, with GATEWAY_DEV_IDP=off, or switched off', () => {
  assert.equal(dashboardOff(loadGatewayConfig({})), undefined);
  const postgres = dashboardOff(loadGatewayConfig({ GATEWAY_DATABASE_URL: PG }));
  assert.match(
    postgres?.reason ?? '',
    /no identity provider: GATEWAY_OIDC_ISSUER is not set, and the development provider starts on its own only on the embedded SQLite database/,
  );
  assert.match(
    postgres?.turnOn ?? '',
    /^set GATEWAY_OIDC_ISSUER, GATEWAY_OIDC_CLIENT_ID and GATEWAY_OIDC_CLIENT_SECRET .*or GATEWAY_DEV_IDP=on/,
  );
  assert.match(
    dashboardOff(loadGatewayConfig({ GATEWAY_DEV_IDP: 'off' }))?.reason ?? '',
    /GATEWAY_DEV_IDP=off/,
  );
  assert.deepEqual(dashboardOff(loadGatewayConfig({ GATEWAY_DASHBOARD: 'false' })), {
    reason: 'GATEWAY_DASHBOARD=false',
    turnOn: 'set GATEWAY_DASHBOARD=true',
  });
});

test('without an identity provider /dashboard says why it is off and the landing page does not link it', async () => {
  const gateway = await startDashboardApp({ dashboard: { devIdp: 'off' } });
  try {
    assert.equal(gateway.app.dashboardEnabled, false);
    for (const url of ['/dashboard', '/dashboard/projects']) {
      const dashboard = await gateway.app.inject({ method: 'GET', url });
      assert.equal(dashboard.statusCode, 404);
      assert.equal(dashboard.json().error.code, 'gateway_dashboard_off');
      assert.match(
        dashboard.json().error.message,
        /^The account dashboard is off on this gateway \(no identity provider: GATEWAY_OIDC_ISSUER is not set and GATEWAY_DEV_IDP=off\)\. Ask the gateway's operator/,
      );
    }
    const page = await gateway.app.inject({
      method: 'GET',
      url: '/dashboard',
      headers: { accept: 'text/html' },
    });
    assert.equal(page.statusCode, 404);
    assert.match(String(page.headers['content-type']), /^text\/html/);
    assert.match(page.body, /<title>Dashboard off - Model gateway<\/title>/);
    assert.match(page.body, /The account dashboard is off on this gateway \(no identity provider/);
    const unauthorized = await gateway.app.inject({ method: 'GET', url: '/v1/models' });
    assert.doesNotMatch(
      unauthorized.json().error.message,
      /dashboard/,
      'the 401 hint does not send callers there',
    );
    assert.equal(
      (await gateway.app.inject({ method: 'GET', url: '/dev-idp/.well-known/openid-configuration' }))
        .statusCode,
      404,
    );
    const landing = await gateway.app.inject({ method: 'GET', url: '/', headers: { accept: 'text/html' } });
    assert.ok(!landing.body.includes('href="/dashboard"'));
    assert.ok(landing.body.includes('href="/docs"'));
    // The pages' stylesheet is served without the dashboard too (its own assets are not).
    for (const body of [landing.body, page.body]) {
      const sheets = [...body.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((match) => match[1]);
      assert.deepEqual(sheets, ['/assets/page.css']);
    }
    assert.equal((await gateway.app.inject({ method: 'GET', url: '/assets/page.css' })).statusCode, 200);
  } finally {
    await gateway.close();
  }
});
