/**
 * The activity log in real headless Chromium on a listening gateway, after real chat calls
 * through it: the project admin opens it from the project page, pages older and newer, filters
 * by provider with the form, and downloads the filtered CSV. With UPDATE_SCREENSHOTS=1 the page
 * is saved to docs/gateway/img/ for docs/gateway/dashboard.md.
 */
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import { type Simulator, startSimulator } from '@app/upstream-simulator';
import type { Browser } from 'playwright-core';
import { browserSkipReason, launchChromium } from '../../../../scripts/browser.ts';
import {
  addProject,
  approveMembership,
  issueToken,
  requestMembership,
  setAllocation,
} from '../access/admin.ts';
import { loadSigningKeys, signingKeyLocation } from '../access/keys.ts';
import { COOKIES } from './context.ts';
import { ACTIVITY_PAGE_SIZE } from './routes/activity.ts';
import { type DashboardTestApp, sessionFor, settled, startDashboardApp } from './testing.ts';

const SCREENSHOTS = new URL('../../../../docs/gateway/img/', import.meta.url);
const skip = browserSkipReason();
/** Requests of the member on `developer`: one more than a page, with the rest below. */
const DEVELOPER_CALLS = ACTIVITY_PAGE_SIZE + 1;

describe('the activity log in a browser', { skip }, () => {
  let gateway: DashboardTestApp;
  let base: string;
  let browser: Browser;
  let sim: Simulator;

  before(async () => {
    sim = await startSimulator({ behaviour: { firstTokenDelayMs: 0, tokenDelayMs: 0 } });
    gateway = await startDashboardApp({ simulator: sim });
    const db = gateway.database.db;
    await addProject(db, { slug: 'lab' });
    await setAllocation(db, { slug: 'lab', provider: 'developer', usd: 5 });
    await setAllocation(db, { slug: 'lab', provider: 'cloud_c', usd: 5 });
    for (const email of ['dev@example.com', 'lead@example.com']) {
      await sessionFor(gateway.database, email);
      await requestMembership(db, { slug: 'lab', email });
      await approveMembership(db, { slug: 'lab', email, admin: email.startsWith('lead') });
    }
    const keys = await loadSigningKeys(
      signingKeyLocation(gateway.config.dataDir, gateway.config.access.signingKeyPath),
    );
    const policy = { defaultTtl: gateway.config.access.tokenTtl, maxTtl: gateway.config.access.tokenMaxTtl };
    const { token } = await issueToken(db, keys, policy, {
      email: 'dev@example.com',
      slug: 'lab',
      description: 'notebook',
    });
    base = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
    const chat = (model: string) =>
      fetch(`${base}/v1/chat/completions`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: JSON.stringify({ model, messages: [{ role: 'user', content: 'Hi' }] }),
      }).then(async (response) => {
        await response.arrayBuffer();
        return response.status;
      });
    for (let i = 0; i < DEVELOPER_CALLS; i++) assert.equal(await chat('gpt-5.4-mini@developer'), 200);
    for (let i = 0; i < 2; i++) assert.equal(await chat('gpt-5.4-mini@cloud_c'), 200);
    await settled(gateway.database, DEVELOPER_CALLS + 2);
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await gateway?.close();
    await sim?.close();
  });

  test('open, page older and newer, filter by provider, download the CSV', async () => {
    const session = await sessionFor(gateway.database, 'lead@example.com');
    const context = await browser.newContext({
      viewport: { width: 1400, height: 900 },
      acceptDownloads: true,
    });
    await context.addCookies([{ name: COOKIES.session, value: session.cookie, url: `${base}/dashboard` }]);
    const page = await context.newPage();
    const rows = page.locator('table.activity tr[data-request]');
    await page.goto(`${base}/dashboard/projects/lab`);
    await page.getByRole('link', { name: 'Activity' }).click();
    await page.getByRole('heading', { name: 'Activity' }).waitFor();
    assert.equal(await rows.count(), ACTIVITY_PAGE_SIZE);
    const newest = await rows.first().getAttribute('data-request');
    // A column per meter the page's rows hold, after the effort and tier.
    const meters = await page.locator('table.activity th.meter').allTextContents();
    assert.ok(meters.includes('input') && meters.includes('output'), meters.join());
    const firstCells = await rows.first().locator('td.number').allTextContents();
    assert.ok(Number(firstCells[meters.indexOf('input')]) > 0, firstCells.join());
    if (process.env.UPDATE_SCREENSHOTS === '1') {
      mkdirSync(SCREENSHOTS, { recursive: true });
      await page.screenshot({ path: new URL('dashboard-activity.png', SCREENSHOTS).pathname });
    }

    await page.getByRole('link', { name: 'Older' }).click();
    await page.waitForURL(/before=\d+/);
    assert.equal(await rows.count(), DEVELOPER_CALLS + 2 - ACTIVITY_PAGE_SIZE);
    assert.equal(await page.getByRole('link', { name: 'Older' }).count(), 0, 'the last page');
    await page.getByRole('link', { name: 'Newer' }).click();
    await page.waitForURL(/after=\d+/);
    assert.equal(await rows.count(), ACTIVITY_PAGE_SIZE);
    assert.equal(await rows.first().getAttribute('data-request'), newest);

    await page.getByLabel('Provider').selectOption('cloud_c');
    await page.getByRole('button', { name: 'Filter' }).click();
    await page.waitForURL(/provider=cloud_c/);
    assert.equal(await rows.count(), 2);
    assert.equal(await page.locator('table.activity td', { hasText: 'developer' }).count(), 0);

    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('link', { name: 'Download CSV' }).click(),
    ]);
    assert.match(download.suggestedFilename(), /^activity-lab-\d{4}-\d{2}-\d{2}\.csv$/);
    const csv = readFileSync(await download.path(), 'utf8')
      .trim()
      .split('\r\n');
    assert.equal(csv.length, 1 + 2);
    for (const line of csv.slice(1)) assert.match(line, /,notebook,cloud_c,gpt-5\.4-mini/);
    const header = csv[0]?.split(',') ?? [];
    const input = header.indexOf('input');
    assert.ok(input > header.indexOf('reason'), `the meters follow the fixed columns: ${csv[0]}`);
    for (const line of csv.slice(1)) assert.ok(Number(line.split(',')[input]) > 0, line);
    await context.close();
  });
});
