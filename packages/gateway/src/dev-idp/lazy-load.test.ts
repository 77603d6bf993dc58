/**
 * oidc-provider (and Koa under it) loads with the first /dev-idp request, not with the gateway:
 * a module hook records every import this process resolves, before the gateway is imported.
 */
import assert from 'node:assert/strict';
import { registerHooks } from 'node:module';
import { after, before, test } from 'node:test';

const resolved: string[] = [];
registerHooks({
  resolve(specifier, context, nextResolve) {
    resolved.push(specifier);
    return nextResolve(specifier, context);
  },
});
const providerLoaded = () => resolved.some((specifier) => specifier === 'oidc-provider');

// Imported after the hook is in place (static imports would resolve first).
const { startDashboardApp } = await import('../dashboard/testing.ts');
let gateway: Awaited<ReturnType<typeof startDashboardApp>>;

before(async () => {
  gateway = await startDashboardApp();
});
after(() => gateway.close());

test('a gateway with the development identity provider on starts without loading oidc-provider', async () => {
  assert.ok(resolved.some((specifier) => specifier.endsWith('dev-idp/index.ts')));
  assert.equal(providerLoaded(), false);
  assert.equal((await gateway.app.inject({ url: '/healthz' })).statusCode, 200);
  assert.equal(providerLoaded(), false);
});

test('the first /dev-idp request loads it and gets the discovery document', async () => {
  const response = await gateway.app.inject({ url: '/dev-idp/.well-known/openid-configuration' });
  assert.equal(providerLoaded(), true);
  assert.equal(response.statusCode, 200);
  assert.match(response.json<{ issuer: string }>().issuer, /\/dev-idp$/);
});
