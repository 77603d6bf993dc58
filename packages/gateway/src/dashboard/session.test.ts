/**
 * The idle timeout of dashboard sessions through HTTP, on a frozen clock (Date mocked, moved by
 * hand; no waiting): a session in use stays signed in however short the timeout, an idle one ends.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { testEngines } from '@app/db/testing.ts';
import { type DashboardTestApp, injectBrowser, sessionFor, startDashboardApp } from './testing.ts';

const SIGNED_IN = /Signed in as <strong>busy@example.com<\/strong>/;

for (const { engine, skip } of testEngines())
  describe(`dashboard session idle timeout (${engine})`, { skip }, () => {
    let gateway: DashboardTestApp;

    before(async () => {
      gateway = await startDashboardApp({ engine, dashboard: { sessionIdleTimeout: '5s' } });
    });
    after(() => gateway.close());

    test('a 5 s timeout: used every second for 15 s the session stays; 5 s idle ends it', async (t) => {
      t.mock.timers.enable({ apis: ['Date'], now: Date.now() });
      const { cookie, idHash } = await sessionFor(gateway.database, 'busy@example.com');
      const browser = injectBrowser(gateway.app, cookie);
      for (let second = 1; second <= 15; second++) {
        t.mock.timers.tick(1000);
        const home = await browser.get('/dashboard');
        assert.match(home.body, SIGNED_IN, `still signed in after ${second} s of use`);
      }
      t.mock.timers.tick(4000);
      assert.match((await browser.get('/dashboard')).body, SIGNED_IN, '4 s idle is within the timeout');
      t.mock.timers.tick(5000);
      const after = await browser.get('/dashboard');
      assert.doesNotMatch(after.body, SIGNED_IN);
      assert.match(after.body, /<a class="button" href="\/dashboard\/login">Sign in<\/a>/);
      const rows = await gateway.database.db
        .selectFrom('dashboard_sessions')
        .select('id_hash')
        .where('id_hash', '=', idHash)
        .execute();
      assert.equal(rows.length, 0, 'the idle session is deleted');
    });
  });
