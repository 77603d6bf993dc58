/**
 * Budget alerts in real headless Chromium: the demo admin saves thresholds on the project page,
 * spend crosses one, the banner appears (the page reloaded as a user would), and Dismiss hides it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { browserSkipReason, launchChromium } from '../../../../scripts/browser.ts';
import { DEMO, seedDemo } from '../access/demo.ts';
import { loadDevUsers } from '../dev-idp/index.ts';
import { type DashboardTestApp, startDashboardApp } from './testing.ts';

const skip = browserSkipReason();

describe('budget alerts in a browser', { skip }, () => {
  let gateway: DashboardTestApp;
  let base: string;
  let browser: Browser;

  before(async () => {
    gateway = await startDashboardApp({ alerts: { checkMs: 50 } });
    await seedDemo(gateway.database, gateway.config);
    base = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await gateway?.close();
  });

  async function signIn(email: string): Promise<Page> {
    const page = await (await browser.newContext()).newPage();
    await page.goto(`${base}/dashboard/login`);
    const user = loadDevUsers(gateway.config.dataDir).find((candidate) => candidate.email === email);
    assert.ok(user);
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Authorize' }).click();
    await page.getByRole('heading', { name: 'Your projects' }).waitFor();
    return page;
  }

  test('the thresholds form saves, a crossing shows the banner, Dismiss hides it', async () => {
    const page = await signIn(DEMO.email);
    await page.goto(`${base}/dashboard/projects/${DEMO.project}`);
    const thresholds = page.getByLabel('Thresholds (percent of each allocation)');
    assert.equal(await thresholds.inputValue(), '50,80,100');
    await thresholds.fill('10, 60');
    await page.getByRole('button', { name: 'Save alert settings' }).click();
    await page.getByRole('heading', { name: `Project ${DEMO.project}` }).waitFor();
    assert.equal(await page.getByLabel('Thresholds (percent of each allocation)').inputValue(), '10,60');
    assert.equal(await page.getByRole('heading', { name: 'Budget alert', exact: true }).count(), 0);

    // $3 of the demo's $25 developer bucket, as the ledger's commits write spend: 12%.
    await gateway.database.db
      .updateTable('allocations')
      .set({ spent_micros: 3_000_000 })
      .where('provider', '=', 'developer')
      .execute();
    const banner = page.getByRole('alert').filter({ hasText: 'Budget alert' });
    for (let i = 0; i < 100 && (await banner.count()) === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      await page.reload();
    }
    const shown = ((await banner.textContent()) ?? '').replace(/\s+/g, ' ');
    assert.match(shown, /developer crossed 10% of its allocation: \$3\.00 of \$25\.00 spent \(12%\)/);
    await page.getByRole('button', { name: 'Dismiss' }).click();
    await page.getByRole('heading', { name: `Project ${DEMO.project}` }).waitFor();
    assert.equal(await banner.count(), 0);
  });
});
