/**
 * The whole dashboard flow in real headless Chromium on a listening gateway with the
 * development identity provider and the demo account: sign in with consent, request
 * membership, an admin approves and sets an allocation, generate a token, see it once, copy
 * it, use it with the OpenAI SDK, reload, revoke after confirming (401 at once); then the usage
 * chart after a chat call, and the audit trail of all of it. With UPDATE_SCREENSHOTS=1 the pages are saved to
 * docs/gateway/img/ for docs/gateway/dashboard.md.
 */
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';
import OpenAI from 'openai';
import { type Simulator, startSimulator } from '@app/upstream-simulator';
import type { Browser, Page } from 'playwright-core';
import { browserSkipReason, launchChromium } from '../../../../scripts/browser.ts';
import { seedDemo } from '../access/demo.ts';
import { loadDevUsers } from '../dev-idp/index.ts';
import { formatUsd } from '../money.ts';
import { type DashboardTestApp, settled, startDashboardApp } from './testing.ts';

const SCREENSHOTS = new URL('../../../../docs/gateway/img/', import.meta.url);
const skip = browserSkipReason();

async function shoot(page: Page, name: string): Promise<void> {
  if (process.env.UPDATE_SCREENSHOTS !== '1') return;
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: new URL(`dashboard-${name}.png`, SCREENSHOTS).pathname, fullPage: true });
}

function text(content: string | null): string {
  return (content ?? '').replace(/\s+/g, ' ');
}

describe('the dashboard in a browser', { skip }, () => {
  let gateway: DashboardTestApp;
  let base: string;
  let browser: Browser;
  let sim: Simulator;

  before(async () => {
    sim = await startSimulator();
    gateway = await startDashboardApp({ simulator: sim });
    await seedDemo(gateway.database, gateway.config);
    base = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
    await gateway?.close();
    await sim?.close();
  });

  async function signIn(email: string, consent: { screenshot?: string } = {}): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1000, height: 720 } });
    const page = await context.newPage();
    await page.goto(`${base}/`);
    await page.getByRole('link', { name: 'Account dashboard' }).click();
    await page.getByRole('link', { name: 'Sign in' }).click();
    const user = loadDevUsers(gateway.config.dataDir).find((candidate) => candidate.email === email);
    assert.ok(user);
    await page.getByLabel('Email').fill(user.email);
    await page.getByLabel('Password').fill(user.password);
    if (consent.screenshot) await shoot(page, 'sign-in');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('heading', { name: 'Authorize access to your profile' }).waitFor();
    assert.equal(
      text(await page.locator('#consent-question').textContent()).trim(),
      'Model gateway dashboard wants to access your profile:',
    );
    if (consent.screenshot) await shoot(page, consent.screenshot);
    await page.getByRole('button', { name: 'Authorize' }).click();
    await page.getByRole('heading', { name: 'Your projects' }).waitFor();
    return page;
  }

  test('sign in, join a project, get a token once, use it, revoke it', async () => {
    const admin = await signIn('demo@example.com');
    await admin.getByLabel('Project name', { exact: true }).last().fill('research');
    await admin.getByRole('button', { name: 'Create project' }).click();
    await admin.getByRole('heading', { name: 'Project research' }).waitFor();

    const alice = await signIn('alice@example.com', { screenshot: 'consent' });
    await alice.getByLabel('Project name').fill('research');
    await alice.getByRole('button', { name: 'Request membership' }).click();
    // Until approved the project is not hers to see: not listed, no page, no token.
    assert.match(text(await alice.getByRole('status').textContent()), /Request sent for project research/);
    assert.equal(await alice.getByRole('link', { name: 'research' }).count(), 0);
    await shoot(alice, 'request-sent');

    await admin.reload();
    await admin.getByRole('button', { name: 'Approve alice@example.com' }).click();
    await admin.getByLabel('Provider bucket').selectOption('developer');
    await admin.getByLabel('Allocation in US dollars').fill('10');
    await admin.getByRole('button', { name: 'Set allocation' }).click();
    await admin.getByRole('cell', { name: '$10.00' }).first().waitFor();
    await shoot(admin, 'project-admin');

    // The spec's flow: select the project -> Personal access tokens -> Generate -> Token description.
    await alice.goto(`${base}/dashboard`);
    await alice.getByRole('link', { name: 'research' }).click();
    await alice.getByRole('link', { name: 'Personal access tokens' }).click();
    await alice.getByRole('link', { name: 'Generate', exact: true }).click();
    await alice.getByLabel('Token description').fill('notebook');
    await alice.getByRole('button', { name: 'Generate token' }).click();
    const field = alice.getByLabel('Your new personal access token');
    const token = await field.inputValue();
    assert.match(token, /^ey[\w-]+\.[\w-]+\.[\w-]+$/);
    assert.match((await alice.textContent('main')) ?? '', /only time it is shown.*expires/s);
    await alice.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: base });
    await alice.getByRole('button', { name: 'Copy' }).click();
    // The button says it copied, and the status next to it announces it (role="status").
    await alice.getByRole('button', { name: 'Copied' }).waitFor();
    assert.equal(text(await alice.getByRole('status').textContent()).trim(), 'Copied to the clipboard.');
    assert.equal(await alice.evaluate('navigator.clipboard.readText()'), token);
    await shoot(alice, 'token-once');

    const client = new OpenAI({ apiKey: token, baseURL: `${base}/v1`, maxRetries: 0 });
    // Accepted: the SDK throws on 401; the list holds the models the project's buckets reach.
    const models = await client.models.list();
    assert.ok(Array.isArray(models.data));
    const completion = await client.chat.completions.create({
      model: 'gpt-5.4-mini',
      messages: [{ role: 'user', content: 'Say hello!' }],
    });
    assert.ok(completion.choices[0]?.message.content);
    await settled(gateway.database, 1);

    await alice.reload();
    await alice.getByRole('heading', { name: 'Personal access tokens' }).waitFor();
    assert.equal(await alice.getByLabel('Your new personal access token').count(), 0);
    assert.ok(!(await alice.content()).includes(token), 'a reload never shows the token again');
    await alice.getByRole('row', { name: /notebook/ }).waitFor();
    await shoot(alice, 'tokens');

    const modelsStatus = () =>
      client.models.list().then(
        () => 200,
        (error: unknown) => (error instanceof OpenAI.APIError ? (error.status ?? 0) : 0),
      );
    assert.equal(await modelsStatus(), 200, 'the token state is cached just before the revocation');
    const revoke = alice.getByRole('button', { name: 'Revoke notebook' });
    await revoke.click();
    // A question first; the token works until it is answered.
    await alice.getByRole('heading', { name: 'Revoke token notebook?' }).waitFor();
    assert.equal(await modelsStatus(), 200, 'asking revoked nothing');
    await shoot(alice, 'revoke-confirm');
    await alice.getByRole('button', { name: 'Revoke token' }).click();
    await alice.getByRole('heading', { name: 'Personal access tokens' }).waitFor();
    // The list shows the token without its button once the revocation is done, and this instance
    // forgot the cached state then: the very next call is refused, however slow the machine.
    // (Timed against 1 s instead, the check depended on the machine's speed.)
    await revoke.waitFor({ state: 'detached' });
    assert.equal(await modelsStatus(), 401);

    await usageChart(alice);
    await admin.goto(`${base}/dashboard/projects/research/audit`);
    const rows = admin.getByRole('row');
    await rows.nth(1).waitFor();
    const trail = (await rows.allTextContents()).slice(1).map(text);
    assert.match(trail[0] ?? '', /alice@example\.com token revoked alice@example\.com token 'notebook'/);
    assert.match(trail[1] ?? '', /alice@example\.com token issued alice@example\.com token 'notebook'/);
    assert.match(trail[2] ?? '', /demo@example\.com allocation set developer none -> \$10\.00/);
    assert.match(trail.at(-1) ?? '', /demo@example\.com project created research/);
    await shoot(admin, 'audit');
  });

  /** The project's chart shows the chat call's spend: a bar with height, a title and a description. */
  async function usageChart(page: Page): Promise<void> {
    await page.goto(`${base}/dashboard/projects/research`);
    const chart = page.getByRole('img', { name: 'Spend per day of project research', exact: true });
    await chart.waitFor();
    // Named by its <title> (exact match), described by its <desc>.
    const descId = (await chart.getAttribute('aria-describedby')) ?? '';
    const description = (await page.locator(`#${descId}`).textContent()) ?? '';
    const { spent } = await gateway.database.db
      .selectFrom('usage')
      .select((eb) => eb.fn.sum<number>('cost_micros').as('spent'))
      .executeTakeFirstOrThrow();
    assert.ok(description.includes(`${formatUsd(Number(spent))} in all`), description);
    const today = new Date().toISOString().slice(0, 10);
    const bar = await page.locator(`rect[data-day="${today}"]`).boundingBox();
    assert.ok(bar && bar.height > 10, `today's bar is drawn (${JSON.stringify(bar)})`);
    const row = page.getByRole('row', { name: /^developer/ });
    const cells = (await row.locator('th, td').allTextContents()).map((cell) => text(cell).trim());
    const figures = ['developer', '$10.00', formatUsd(Number(spent)), '$0.00'];
    assert.deepEqual(cells.slice(0, 6), [...figures, formatUsd(10_000_000 - Number(spent)), '1']);
    // Then one column per meter the bucket's rows hold: together, every quantity of the ledger.
    const rows = await gateway.database.db.selectFrom('usage').select('meters').execute();
    const quantities = rows.flatMap((r) =>
      Object.values(JSON.parse(String(r.meters)) as Record<string, number>),
    );
    const shown = cells.slice(6).map((cell) => Number(cell.replaceAll(',', '')));
    const sum = (values: number[]) => values.reduce((a, b) => a + b, 0);
    assert.ok(shown.length > 0, cells.join(' | '));
    assert.equal(sum(shown), sum(quantities), cells.join(' | '));
    await shoot(page, 'usage');
  }
});
