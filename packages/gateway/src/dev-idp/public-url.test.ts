/**
 * The development identity provider behind a TLS-terminating proxy: the gateway is reached as
 * plain HTTP, its public URL is https. Every URL the provider publishes (discovery, redirects,
 * form actions) follows GATEWAY_PUBLIC_URL, whatever the request or its forwarding headers say,
 * and the dashboard's sign-in works end to end through the proxy (app.inject as the proxy).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  type DashboardTestApp,
  formAction,
  proxyTransport,
  redirectingBrowser,
  startDashboardApp,
} from '../dashboard/testing.ts';
import { loadDevUsers } from './index.ts';

const PUBLIC = 'https://gateway.example.test';

/** Every URL-valued member of a discovery document (issuer, endpoints, jwks_uri). */
function publishedUrls(document: Record<string, unknown>): string[] {
  return Object.entries(document)
    .filter(([key, value]) => typeof value === 'string' && /^(issuer|.*_endpoint|.*_uri)$/.test(key))
    .map(([, value]) => String(value));
}

describe('the development identity provider behind a TLS-terminating proxy', () => {
  const gateways: DashboardTestApp[] = [];
  after(async () => {
    for (const gateway of gateways) await gateway.close();
  });
  async function gatewayAt(publicUrl: string): Promise<DashboardTestApp> {
    const gateway = await startDashboardApp({ publicUrl });
    gateways.push(gateway);
    return gateway;
  }

  for (const publicUrl of [PUBLIC, `${PUBLIC}:8443/gw`])
    test(`discovery lists only URLs under ${publicUrl}, whatever the request's headers`, async () => {
      const gateway = await gatewayAt(publicUrl);
      const issuer = `${publicUrl}/dev-idp`;
      for (const headers of [
        { host: new URL(publicUrl).host, 'x-forwarded-proto': 'https' },
        { host: '10.0.0.7:8080' },
        { host: 'gateway.example.test', 'x-forwarded-proto': 'http', 'x-forwarded-host': 'evil.example' },
      ]) {
        const response = await gateway.app.inject({
          url: '/dev-idp/.well-known/openid-configuration',
          headers,
        });
        assert.equal(response.statusCode, 200);
        const urls = publishedUrls(response.json());
        assert.ok(urls.length >= 6, urls.join(' '));
        assert.equal(response.json<{ issuer: string }>().issuer, issuer);
        for (const url of urls) assert.ok(url.startsWith(issuer), `${url} (${JSON.stringify(headers)})`);
      }
    });

  describe('the dashboard sign-in through the proxy', () => {
    let gateway: DashboardTestApp;
    before(async () => {
      gateway = await gatewayAt(PUBLIC);
    });

    test('login, consent, callback and sign-out: every redirect and form stays on the public https URL', async () => {
      const b = redirectingBrowser(PUBLIC, proxyTransport(gateway.app));
      const login = await b.request('/dashboard/login');
      assert.match(login.url, /^https:\/\/gateway\.example\.test\/dev-idp\/interaction\//);
      const user = loadDevUsers(gateway.config.dataDir).find((u) => u.email === 'alice@example.com');
      assert.ok(user);
      const signInAction = formAction(login.text, 'Sign in');
      const consent = await b.request(signInAction, {
        method: 'POST',
        form: { email: user.email, password: user.password },
      });
      assert.match(consent.text, /<h1>Authorize access to your profile<\/h1>/);
      const authorizeAction = formAction(consent.text, 'Authorize');
      const landed = await b.request(authorizeAction, { method: 'POST', form: {} });
      assert.equal(landed.status, 200, landed.text.slice(0, 500));
      assert.equal(landed.url, `${PUBLIC}/dashboard`);
      assert.match(landed.text, /Signed in as <strong>alice@example.com<\/strong>/);
      for (const url of [...b.visited, signInAction, authorizeAction])
        assert.ok(url.startsWith(`${PUBLIC}/`), url);
      const identity = await gateway.database.db
        .selectFrom('user_identities')
        .select('issuer')
        .executeTakeFirstOrThrow();
      assert.equal(identity.issuer, `${PUBLIC}/dev-idp`);

      // Sign-out ends the provider's session too (RP-initiated logout), through the proxy.
      const confirm = await b.request(formAction(landed.text, 'Sign out'), {
        method: 'POST',
        form: { _csrf: /name="_csrf" value="([^"]+)"/.exec(landed.text)?.[1] ?? '' },
      });
      assert.match(confirm.text, /Sign out of the development identity provider too/);
      const logout =
        /<form id="op\.logoutForm" method="post" action="([^"]+)"><input type="hidden" name="xsrf" value="([^"]+)"/.exec(
          confirm.text,
        );
      assert.ok(logout?.[1] && logout[2], confirm.text);
      const out = await b.request(logout[1], { method: 'POST', form: { xsrf: logout[2], logout: 'yes' } });
      assert.equal(out.url, `${PUBLIC}/dashboard`);
      assert.match(out.text, /Sign in with your organisation/);
      for (const url of [...b.visited, logout[1]]) assert.ok(url.startsWith(`${PUBLIC}/`), url);
    });
  });
});
