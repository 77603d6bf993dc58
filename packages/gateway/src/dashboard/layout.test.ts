/**
 * The dashboard's layout in headless Chromium, measured: on a 390 px wide phone the token list
 * fits (Revoke on screen, nothing scrolls sideways), and buttons next to each other keep a gap.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Locator, Page } from 'playwright-core';
import { browserSkipReason, launchChromium } from '../../../../scripts/browser.ts';
import { addProject, approveMembership, requestMembership, setAllocation } from '../access/admin.ts';
import { loadDevUsers } from '../dev-idp/index.ts';
import { type DashboardTestApp, injectBrowser, sessionFor, startDashboardApp } from './testing.ts';

const PHONE = { width: 390, height: 844 };
/** The least space between two buttons side by side or one above the other, in CSS pixels. */
const MIN_GAP = 8;

/** The space between two boxes: horizontal when they share a row, else vertical. */
async function gapBetween(first: Locator, second: Locator): Promise<number> {
  const [a, b] = [await first.boundingBox(), await second.boundingBox()];
  assert.ok(a && b, 'both are displayed');
  const sameRow = a.y < b.y + b.height && b.y < a.y + a.height;
  if (sameRow) return Math.max(b.x - (a.x + a.width), a.x - (b.x + b.width));
  return Math.max(b.y - (a.y + a.height), a.y - (b.y + b.height));
}

describe('the dashboard layout in a browser', { skip: browserSkipReason() }, () => {
  let gateway: DashboardTestApp;
  let base: string;
  let browser: Browser;
  let lead: string;

  before(async () => {
    gateway = await startDashboardApp();
    const db = gateway.database.db;
    await addProject(db, { slug: 'field-measurements' });
    await setAllocation(db, { slug: 'field-measurements', provider: 'developer', usd: 5 });
    lead = (await sessionFor(gateway.database, 'lead.engineer@example.com')).cookie;
    await requestMembership(db, { slug: 'field-measurements', email: 'lead.engineer@example.com' });
    await approveMembership(db, {
      slug: 'field-measurements',
      email: 'lead.engineer@example.com',
      admin: true,
    });
    const http = injectBrowser(gateway.app, lead);
    for (const description of ['continuous integration pipeline', 'laptop'])
      await http.post(
        '/dashboard/projects/field-measurements/tokens',
        { description },
        '/dashboard/projects/field-measurements/tokens/new',
      );
    base = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await gateway?.close();
  });

  async function signedIn(viewport: { width: number; height: number }): Promise<Page> {
    const context = await browser.newContext({ viewport });
    await context.addCookies([{ name: 'gw_session', value: lead, url: `${base}/dashboard` }]);
    return context.newPage();
  }

  test('at 390 px the token list fits: every Revoke on screen, nothing scrolls sideways', async () => {
    const page = await signedIn(PHONE);
    await page.goto(`${base}/dashboard/projects/field-measurements/tokens`);
    const revokes = page.getByRole('button', { name: /^Revoke / });
    assert.equal(await revokes.count(), 2);
    for (const revoke of await revokes.all()) {
      const box = await revoke.boundingBox();
      assert.ok(box && box.x >= 0 && box.x + box.width <= PHONE.width, `Revoke at ${JSON.stringify(box)}`);
    }
    const scrollWidth = Number(await page.evaluate('document.documentElement.scrollWidth'));
    assert.ok(scrollWidth <= PHONE.width, `the page is ${scrollWidth} px wide`);
    await page.context().close();
  });

  test('buttons next to each other are spaced: project actions, a confirmation, the consent screen', async () => {
    const page = await signedIn({ width: 1000, height: 720 });
    await page.goto(`${base}/dashboard/projects/field-measurements`);
    const project = page.getByRole('navigation', { name: 'Project' });
    const gaps = [
      await gapBetween(
        project.getByRole('link', { name: 'Personal access tokens' }),
        project.getByRole('link', { name: 'Audit trail' }),
      ),
    ];
    await page.goto(`${base}/dashboard/projects/field-measurements/tokens`);
    await page.getByRole('button', { name: 'Revoke laptop' }).click();
    await page.getByRole('heading', { name: 'Revoke token laptop?' }).waitFor();
    gaps.push(
      await gapBetween(
        page.getByRole('button', { name: 'Revoke token' }),
        page.getByRole('link', { name: 'Cancel' }),
      ),
    );

    const visitor = await (await browser.newContext({ viewport: { width: 1000, height: 720 } })).newPage();
    await visitor.goto(`${base}/dashboard/login`);
    const user = loadDevUsers(gateway.config.dataDir)[1];
    assert.ok(user);
    await visitor.getByLabel('Email').fill(user.email);
    await visitor.getByLabel('Password').fill(user.password);
    await visitor.getByRole('button', { name: 'Sign in' }).click();
    await visitor.getByRole('heading', { name: 'Authorize access to your profile' }).waitFor();
    gaps.push(
      await gapBetween(
        visitor.getByRole('button', { name: 'Authorize' }),
        visitor.getByRole('button', { name: 'Cancel' }),
      ),
    );
    for (const gap of gaps) assert.ok(gap >= MIN_GAP, `gaps ${gaps.join(', ')} px`);
    await page.context().close();
    await visitor.context().close();
  });
});
