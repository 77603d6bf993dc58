/**
 * The base address: a browser gets the landing page (with the pages' security headers), an API
 * client a JSON document naming the service, its version and its links; HEAD answers both ways,
 * and every link either one names answers 200.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { COMMANDS } from './cli/commands.ts';
import { LANDING_LINKS } from './landing.ts';
import { energyHarness, type Harness } from './testing/harness.ts';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

/** Every href and src of a page, without fragments (a browser never sends them). */
function addressesOf(page: string): string[] {
  const found = [...page.matchAll(/(?:href|src)="([^"]+)"/g)].map((match) => (match[1] ?? '').split('#')[0]);
  return [...new Set(found.filter((address): address is string => Boolean(address)))];
}

describe('GET / on the energy service', () => {
  let h: Harness;
  before(async () => {
    h = await energyHarness('sqlite');
  });
  after(async () => h?.close());

  const get = (accept?: string, method: 'GET' | 'HEAD' = 'GET') =>
    h.app.inject({ method, url: '/', headers: accept === undefined ? {} : { accept } });

  test('a browser gets the landing page, with headers that let it run nothing', async () => {
    const page = await get(BROWSER);
    assert.equal(page.statusCode, 200);
    assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
    assert.match(page.body, /<title>Welcome - Energy asset service<\/title>/);
    assert.match(page.body, /<strong>Energy asset service<\/strong>/);
    assert.match(page.body, /Rails-compatible REST API/);
    const csp = String(page.headers['content-security-policy']);
    assert.match(csp, /^default-src 'none'; /);
    assert.match(csp, /frame-ancestors 'none'/);
    assert.ok(!csp.includes('script-src') && !csp.includes('unsafe'), csp);
    assert.equal(page.headers['x-content-type-options'], 'nosniff');
    assert.equal(page.headers['x-frame-options'], 'DENY');
    assert.equal(page.headers['referrer-policy'], 'no-referrer');
    assert.equal(page.headers.vary, 'accept');
    assert.ok(page.body.includes('<link rel="icon" href="/favicon.ico" type="image/svg+xml" />'));
  });

  test('the page links the docs, the OpenAPI document, health and metrics, and every link answers 200', async () => {
    const page = (await get(BROWSER)).body;
    const addresses = addressesOf(page);
    for (const link of Object.values(LANDING_LINKS)) assert.ok(addresses.includes(link), link);
    assert.ok(addresses.includes('/assets/page.css') && addresses.includes('/favicon.ico'));
    for (const address of addresses) {
      const response = await h.app.inject({ method: 'GET', url: address, headers: { accept: BROWSER } });
      assert.equal(response.statusCode, 200, address);
    }
  });

  test('the page says how to get a token, with energyctl commands that exist', async () => {
    const page = (await get(BROWSER)).body;
    assert.ok(page.includes('<code>POST /api/v1/users/authenticate</code>'));
    assert.ok(page.includes('Authorization: Bearer &lt;token&gt;'), 'escaped, shown as text');
    const commands = [...page.matchAll(/npx energyctl (\w+ [\w-]+)/g)].map((match) => match[1]);
    assert.deepEqual(commands, ['users add', 'tokens issue']);
    for (const command of commands) assert.ok(command && command in COMMANDS, command);
  });

  test('an API client gets a JSON document naming the service, its version and its links', async () => {
    const openapi = (await h.app.inject({ method: 'GET', url: '/openapi.json' })).json();
    for (const accept of ['application/json', '*/*', undefined, 'application/xml']) {
      const response = await get(accept);
      assert.equal(response.statusCode, 200, String(accept));
      assert.equal(response.headers['content-type'], 'application/json; charset=utf-8');
      assert.equal(response.headers.vary, 'accept');
      const document = response.json();
      assert.equal(document.service, openapi.info.title);
      assert.equal(document.version, openapi.info.version);
      assert.deepEqual(document.links, LANDING_LINKS);
      assert.deepEqual(document.authentication.issue, {
        method: 'POST',
        href: '/api/v1/users/authenticate',
        parameters: ['email', 'password'],
      });
    }
    const { links } = (await get('application/json')).json() as { links: Record<string, string> };
    for (const link of Object.values(links))
      assert.equal((await h.app.inject({ method: 'GET', url: link })).statusCode, 200, link);
  });

  test('the token endpoint the document names issues a token for email and password', async () => {
    await h.user('landing@example.com');
    const { authentication } = (await get('application/json')).json();
    const response = await h.app.inject({
      method: authentication.issue.method,
      url: authentication.issue.href,
      payload: { email: 'landing@example.com', password: 'password123' },
    });
    assert.equal(response.statusCode, 200);
    assert.match(response.json().token, /^[\w-]{43}$/);
  });

  test('HEAD answers as GET would, without a body', async () => {
    const page = await get(BROWSER, 'HEAD');
    assert.equal(page.statusCode, 200);
    assert.equal(page.headers['content-type'], 'text/html; charset=utf-8');
    assert.equal(Number(page.headers['content-length']), Buffer.byteLength((await get(BROWSER)).body));
    assert.equal(page.body, '');
    const document = await get('application/json', 'HEAD');
    assert.equal(document.statusCode, 200);
    assert.equal(document.headers['content-type'], 'application/json; charset=utf-8');
    assert.equal(document.body, '');
  });

  test("the icon is the service's own SVG; other methods on / stay the service's 404", async () => {
    const icon = await h.app.inject({ method: 'GET', url: '/favicon.ico' });
    assert.equal(icon.statusCode, 200);
    assert.equal(icon.headers['content-type'], 'image/svg+xml');
    assert.match(icon.body, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    const post = await h.app.inject({ method: 'POST', url: '/', payload: {} });
    assert.equal(post.statusCode, 404);
    assert.equal(post.json().error.code, 'not_found');
  });
});
