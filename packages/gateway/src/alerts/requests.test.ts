/**
 * Budget alerts from real spend: chat requests through the gateway (the simulator prices each at
 * 85 micro-dollars) take a $0.001 bucket past 50% and 80% but not 100%; the webhook receives
 * those two, the project page shows the banner, project admins set the thresholds and webhook
 * in the dashboard and see the secret once, and dismiss the banner.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Simulator, startSimulator } from '@app/upstream-simulator';
import { approveMembership, requestMembership } from '../access/admin.ts';
import { bearer } from '../access/test-app.ts';
import { seedAccount } from '../access/testing.ts';
import {
  type DashboardTestApp,
  formAction,
  injectBrowser,
  sessionFor,
  startDashboardApp,
} from '../dashboard/testing.ts';
import { verifySignature } from './signature.ts';
import { type Receiver, waitFor, webhookReceiver } from './testing.ts';

describe('budget alerts from requests through the gateway, shown in the dashboard', () => {
  let sim: Simulator;
  let t: DashboardTestApp;
  let receiver: Receiver;
  let token: string;
  let admin: ReturnType<typeof injectBrowser>;
  let member: ReturnType<typeof injectBrowser>;
  let secret = '';
  const page = '/dashboard/projects/spend';

  before(async () => {
    sim = await startSimulator();
    receiver = await webhookReceiver();
    await receiver.up();
    t = await startDashboardApp({
      simulator: sim,
      alerts: { checkMs: 50, retryBaseMs: 50, retryCapMs: 100, allowHttp: 'loopback', allowPrivate: true },
    });
    ({ token } = await seedAccount(t.database, {
      email: 'dev@example.com',
      projectSlug: 'spend',
      allocations: { developer: 0.001 },
      config: t.config,
    }));
    const db = t.database.db;
    const lead = await sessionFor(t.database, 'lead@example.com');
    await requestMembership(db, { slug: 'spend', email: 'lead@example.com' });
    await approveMembership(db, { slug: 'spend', email: 'lead@example.com', admin: true });
    admin = injectBrowser(t.app, lead.cookie);
    member = injectBrowser(t.app, (await sessionFor(t.database, 'dev@example.com')).cookie);
  });
  after(async () => {
    await t.close();
    await sim.close();
    await receiver.down();
  });

  it('a project admin sets thresholds and webhook in the dashboard; the secret is shown once', async () => {
    const before = await admin.get(page);
    assert.match(before.body, /<input id="thresholds" name="thresholds" required value="50,80,100"/);
    const refused = await admin.post(
      formAction(before.body, 'Save alert settings'),
      {
        thresholds: '50,80,100',
        webhook: 'http://hooks.example.com/x',
      },
      page,
    );
    assert.equal(refused.statusCode, 400);
    assert.match(
      refused.body,
      /id="webhook-problem" role="alert" class="error">The webhook URL must use https/,
    );
    const saved = await admin.post(
      `${page}/alerts`,
      { thresholds: '50, 80, 100', webhook: receiver.url },
      page,
    );
    assert.equal(saved.statusCode, 200, saved.body);
    secret = /id="webhook-secret" class="token" readonly value="(whsec_[^"]+)"/.exec(saved.body)?.[1] ?? '';
    assert.ok(secret, 'shown on the answering page');
    const later = await admin.get(page);
    assert.ok(!later.body.includes(secret), 'and never again');
    assert.match(later.body, />Rotate the signing secret</);
    const rotated = await admin.post(formAction(later.body, 'Rotate the signing secret'), {}, page);
    const next = /id="webhook-secret" class="token" readonly value="(whsec_[^"]+)"/.exec(rotated.body)?.[1];
    assert.ok(next && next !== secret, 'a new secret, shown once');
    secret = next;
    const trail = (await admin.get(`${page}/audit`)).body;
    assert.match(trail, /lead@example\.com<\/td><td>budget alerts set<\/td>/);
    assert.match(trail, /webhook secret rotated/);
    assert.ok(!trail.includes('/hooks/budget'), 'the trail names the webhook by its host');
    assert.ok(
      !(await member.get(page)).body.includes('Save alert settings'),
      'members do not see the settings',
    );
    const forbidden = await member.post(`${page}/alerts`, { thresholds: '10', webhook: '' }, page);
    assert.equal(forbidden.statusCode, 404);
  });

  it('requests that cross 50% and 80% send those two alerts, not 100%; the banner shows 80% until dismissed', async () => {
    assert.ok(!(await member.get(page)).body.includes('Budget alert'), 'no banner before any crossing');
    for (let i = 0; i < 10; i++) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: bearer(token),
        payload: { model: 'gpt-5.4@developer', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 },
      });
      assert.equal(response.statusCode, 200, response.body);
    }
    await waitFor(() => receiver.delivered.length >= 2);
    await new Promise((resolve) => setTimeout(resolve, 300));
    const bodies = receiver.delivered.map((r) => JSON.parse(r.body) as Record<string, unknown>);
    assert.deepEqual(
      bodies.map((body) => body.threshold_percent),
      [50, 80],
    );
    assert.deepEqual([bodies[1]?.spent_usd, bodies[1]?.allocated_usd], [0.00085, 0.001]);
    for (const r of receiver.delivered) assert.ok(verifySignature(secret, r.signature, r.body));

    const banner = (await member.get(page)).body;
    assert.match(banner, /<section class="budget-alert" role="alert"/);
    assert.match(
      banner,
      /<strong>developer<\/strong>crossed <strong>80%<\/strong>of its allocation: \$0\.00085 of \$0\.001 spent \(85%\)/,
    );
    assert.ok(!banner.includes('>Dismiss</button>'), 'only project admins dismiss');
    const dismissed = await admin.post(`${page}/alerts/dismiss`, {}, page);
    assert.equal(dismissed.statusCode, 303);
    assert.ok(!(await member.get(page)).body.includes('budget-alert'), 'gone once dismissed');
  });
});
