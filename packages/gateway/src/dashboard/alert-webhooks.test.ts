/**
 * The dashboard's webhook form checks a URL with the same policy as gatewayctl: a private,
 * loopback or link-local host is refused unless GATEWAY_ALERT_WEBHOOK_ALLOW_PRIVATE is set, even
 * when GATEWAY_ALERT_WEBHOOK_ALLOW_HTTP lets http reach it.
 */
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { addProject, approveMembership, requestMembership } from '../access/admin.ts';
import { type DashboardTestApp, injectBrowser, sessionFor, startDashboardApp } from './testing.ts';

const page = '/dashboard/projects/hooks';
const PRIVATE_REFUSAL =
  /id="webhook-problem" role="alert" class="error">The webhook URL may not point at a private, loopback or link-local address/;

async function adminBrowser(alerts: Record<string, unknown>) {
  const t = await startDashboardApp({ alerts });
  const db = t.database.db;
  const lead = await sessionFor(t.database, 'lead@example.com');
  await addProject(db, { slug: 'hooks', ipAllow: [] });
  await requestMembership(db, { slug: 'hooks', email: 'lead@example.com' });
  await approveMembership(db, { slug: 'hooks', email: 'lead@example.com', admin: true });
  return { t, browser: injectBrowser(t.app, lead.cookie) };
}

async function saveWebhook(browser: ReturnType<typeof injectBrowser>, webhook: string) {
  return browser.post(`${page}/alerts`, { thresholds: '50,80,100', webhook }, page);
}

describe('dashboard webhook form and GATEWAY_ALERT_WEBHOOK_ALLOW_PRIVATE', () => {
  const apps: DashboardTestApp[] = [];
  after(async () => {
    for (const t of apps) await t.close();
  });

  it('refuses a private-address webhook by default, and a loopback one that allowHttp lets http reach', async () => {
    const { t, browser } = await adminBrowser({ allowHttp: 'loopback' });
    apps.push(t);
    for (const url of [
      'https://10.1.2.3/budget',
      'https://169.254.169.254/x',
      'http://localhost:9000/budget',
    ]) {
      const refused = await saveWebhook(browser, url);
      assert.equal(refused.statusCode, 400, url);
      assert.match(refused.body, PRIVATE_REFUSAL, url);
    }
    const row = await t.database.db.selectFrom('alert_settings').selectAll().executeTakeFirst();
    assert.equal(row, undefined, 'nothing stored');
    const publicHost = await saveWebhook(browser, 'https://hooks.example.com/budget');
    assert.equal(publicHost.statusCode, 200, publicHost.body);
  });

  it('accepts a private-address webhook when allowPrivate is configured', async () => {
    const { t, browser } = await adminBrowser({ allowPrivate: true });
    apps.push(t);
    const saved = await saveWebhook(browser, 'https://10.1.2.3/budget');
    assert.equal(saved.statusCode, 200, saved.body);
    assert.match(saved.body, /id="webhook-secret" class="token" readonly value="whsec_/);
    const row = await t.database.db.selectFrom('alert_settings').select('webhook_url').executeTakeFirst();
    assert.equal(row?.webhook_url, 'https://10.1.2.3/budget');
    const http = await saveWebhook(browser, 'http://10.1.2.3/budget');
    assert.equal(http.statusCode, 400, 'http still needs GATEWAY_ALERT_WEBHOOK_ALLOW_HTTP');
  });
});
