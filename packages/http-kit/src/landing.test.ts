import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { html } from './html.ts';
import { landingRoutes, publicPage } from './landing.ts';
import { buildTestApp, testErrors } from './test-app.ts';

const ICON = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>');

test('the page shell escapes the service name and title, and names its stylesheet and icon', () => {
  const page = publicPage('A & B', '<Welcome>', html`<p>body</p>`);
  assert.match(page, /<title>&lt;Welcome&gt; - A &amp; B<\/title>/);
  assert.match(page, /<link rel="stylesheet" href="\/assets\/page.css" \/>/);
  assert.match(page, /<link rel="icon" href="\/favicon.ico" type="image\/svg\+xml" \/>/);
  assert.match(page, /<h1>&lt;Welcome&gt;<\/h1>\s*<p>body<\/p>/);
});

describe('landingRoutes', () => {
  let app: FastifyInstance;
  before(async () => {
    ({ app } = await buildTestApp());
    await app.register(
      landingRoutes({
        service: 'Kit service',
        icon: ICON,
        body: html`<p>Hello</p>`,
        forApiClients: (request) => {
          if (request.headers['x-refuse']) throw testErrors.create('not_here', {});
          return { service: 'kit' };
        },
      }),
    );
  });
  after(async () => app?.close());

  const root = (accept: string | undefined, headers: Record<string, string> = {}) =>
    app.inject({ method: 'GET', url: '/', headers: accept === undefined ? headers : { accept, ...headers } });

  test('HTML only when the client prefers it to JSON', async () => {
    const cases: Array<[string | undefined, 'html' | 'json']> = [
      ['text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8', 'html'],
      ['text/html', 'html'],
      ['application/json;q=0.5, text/html', 'html'],
      ['text/html;q=0.5, application/json', 'json'],
      ['*/*', 'json'],
      [undefined, 'json'],
      ['application/json', 'json'],
      ['image/png', 'json'],
    ];
    for (const [accept, expected] of cases) {
      const response = await root(accept);
      assert.equal(response.statusCode, 200, String(accept));
      assert.equal(response.headers.vary, 'accept');
      const got = String(response.headers['content-type']).startsWith('text/html') ? 'html' : 'json';
      assert.equal(got, expected, String(accept));
    }
    assert.deepEqual((await root('application/json')).json(), { service: 'kit' });
  });

  test("an API client may get the service's error instead, still varying on Accept", async () => {
    const refused = await root('application/json', { 'x-refuse': '1' });
    assert.equal(refused.statusCode, 404);
    assert.equal(refused.json().error.message, 'No such route.');
    assert.equal(refused.headers.vary, 'accept');
    assert.equal((await root('text/html', { 'x-refuse': '1' })).statusCode, 200);
  });

  test('the stylesheet and the icon are served with their types', async () => {
    const css = await app.inject({ method: 'GET', url: '/assets/page.css' });
    assert.equal(css.statusCode, 200);
    assert.equal(css.headers['content-type'], 'text/css; charset=utf-8');
    assert.match(css.body, /\.banner \{/);
    const icon = await app.inject({ method: 'GET', url: '/favicon.ico' });
    assert.equal(icon.headers['content-type'], 'image/svg+xml');
    assert.equal(icon.body, ICON.toString());
  });
});
