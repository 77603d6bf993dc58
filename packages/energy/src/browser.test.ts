/**
 * The energy service's pages in real headless Chromium on a listening service: the landing page
 * loads without a console error or a failed request and leads to the docs; Swagger UI's
 * "Try it out" sends the documented example of each media type and the service accepts it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { browserSkipReason, launchChromium } from '../../../scripts/browser.ts';
import { energyHarness, type Harness } from './testing/harness.ts';

const skip = browserSkipReason();

describe('the energy service in a browser', { skip }, () => {
  let h: Harness;
  let base: string;
  let browser: Browser;
  let token: string;

  before(async () => {
    h = await energyHarness('sqlite');
    ({ token } = await h.user());
    base = await h.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await h?.close();
  });

  async function authorized(path: string): Promise<Page> {
    const page = await browser.newPage();
    await page.goto(`${base}${path}`);
    await page.getByRole('button', { name: 'Authorize' }).first().click();
    const schemes = await page.locator('.modal-ux-content').innerText();
    for (const shown of ['Authorization: Bearer <token>', 'Authorization: Token token=<token>'])
      assert.ok(schemes.includes(shown), shown);
    const bearer = page.locator('.auth-container').filter({ has: page.locator('#auth-bearer-value') });
    await bearer.locator('#auth-bearer-value').fill(token);
    await bearer.getByRole('button', { name: 'Apply credentials' }).click();
    await page.locator('.close-modal').click();
    return page;
  }

  /** Console errors (a CSP violation is one), page errors, failed requests and 4xx/5xx answers. */
  function problemsOf(page: Page): string[] {
    const problems: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('requestfailed', (request) => problems.push(`failed: ${request.url()}`));
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${response.status()}: ${response.url()}`);
    });
    return problems;
  }

  test('the landing page loads cleanly, styled, with its icon, and its links lead to the docs', async () => {
    const page = await browser.newPage();
    const problems = problemsOf(page);
    await page.goto(`${base}/`);
    assert.equal(await page.title(), 'Welcome - Energy asset service');
    // Headless Chromium does not fetch icons itself: the address the page names is fetched here.
    const icon = (await page.locator('link[rel="icon"]').getAttribute('href')) ?? '';
    const fetched = await page.request.get(new URL(icon, page.url()).href);
    assert.equal(fetched.headers()['content-type'], 'image/svg+xml');
    const font = await page.evaluate('getComputedStyle(document.body).fontFamily');
    assert.match(String(font), /system-ui/, 'the stylesheet applies');
    assert.equal(problems.join('\n'), '', 'the landing page');
    await page.getByRole('link', { name: 'Interactive API documentation' }).click();
    await page.waitForURL(/\/docs\/?(?:#.*)?$/);
    await page.getByRole('heading', { name: /Energy asset service/ }).waitFor();
    await page.goBack();
    await page.getByRole('link', { name: 'try it' }).click();
    // Deep linking opens the operation the landing page points to.
    await page.locator('#operations-users-post_api_v1_users_authenticate .opblock-body').waitFor();
    // Swagger UI's own console messages (inline styles its bundled CSP refuses, a deprecation
    // notice) are not the landing page's; every request of both pages must still succeed.
    assert.equal(problems.filter((problem) => !problem.startsWith('console: ')).join('\n'), '');
    await page.close();
  });

  test('Swagger UI: "Try it out" sends a working example in JSON, XML and form encoding', async () => {
    const building = await h.app.inject({
      method: 'POST',
      url: '/api/v1/buildings',
      headers: { authorization: `Bearer ${token}` },
      payload: { name: 'Browser' },
    });
    const id = 'operations-building_operations-post_api_v1_buildings__building_id__operations';
    const page = await authorized(
      `/docs/#/building%20operations/${id.replace('operations-building_operations-', '')}`,
    );
    const operation = page.locator(`#${id}`);
    await operation.locator('tr[data-param-name="building_id"] input').fill(String(building.json().id));
    const mediaType = operation.locator('.opblock-section-request-body select').first();
    const body = operation.locator('textarea.body-param__text');
    const sent: Record<string, string> = {};
    for (const type of ['application/json', 'application/xml', 'application/x-www-form-urlencoded']) {
      await mediaType.selectOption(type);
      if (type === 'application/xml')
        assert.match(await body.inputValue(), /<weekdays-open type="boolean">true<\/weekdays-open>/);
      if (type === 'application/x-www-form-urlencoded')
        assert.equal(
          await operation
            .locator('tr[data-property-name="weekday_open_time"] input[type="text"]')
            .inputValue(),
          '0800',
        );
      await operation.getByRole('button', { name: 'Execute' }).click();
      const status = operation.locator('.live-responses-table .response .response-col_status');
      await status.waitFor();
      sent[type] = (await status.innerText()).trim();
      await operation.getByRole('button', { name: 'Clear' }).click();
    }
    assert.deepEqual(sent, {
      'application/json': '201',
      'application/xml': '201',
      'application/x-www-form-urlencoded': '201',
    });
    const list = await h.app.inject({
      url: `/api/v1/buildings/${building.json().id}/operations`,
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(list.json().length, 3);
    await page.close();
  });
});
