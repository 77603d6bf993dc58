/**
 * Two gateway instances on one database serve requests of the same bucket, alternately, past
 * 50% and 80% of it: the webhook receives exactly one alert per threshold crossed, although both
 * instances look for crossings and send deliveries.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testEngines } from '@app/db/testing.ts';
import type { App } from '@app/http-kit';
import { type Simulator, startSimulator } from '@app/upstream-simulator';
import { bearer } from '../access/test-app.ts';
import { seedAccount } from '../access/testing.ts';
import { type DashboardTestApp, startDashboardApp, startDashboardInstance } from '../dashboard/testing.ts';
import { setAlertSettings } from './settings.ts';
import { LOCAL_RECEIVERS, type Receiver, waitFor, webhookReceiver } from './testing.ts';

for (const { engine, skip } of testEngines()) {
  describe(`two instances spending one bucket on ${engine}`, { skip }, () => {
    let sim: Simulator;
    let a: DashboardTestApp;
    let b: { app: App; close(): Promise<void> };
    let receiver: Receiver;
    let token: string;

    before(async () => {
      sim = await startSimulator();
      receiver = await webhookReceiver();
      await receiver.up();
      a = await startDashboardApp({
        engine,
        simulator: sim,
        // Leases of exactly what a request needs: both instances can serve the $0.001 bucket.
        access: { ledgerChunkUsd: 0 },
        alerts: { checkMs: 50, retryBaseMs: 50, retryCapMs: 100, allowHttp: 'loopback', allowPrivate: true },
      });
      b = await startDashboardInstance(a);
      ({ token } = await seedAccount(a.database, {
        email: 'both@example.com',
        projectSlug: 'shared',
        allocations: { developer: 0.001 },
        config: a.config,
      }));
      await setAlertSettings(a.database.db, LOCAL_RECEIVERS, { slug: 'shared', webhookUrl: receiver.url });
    });
    after(async () => {
      await b.close();
      await a.close();
      await sim.close();
      await receiver.down();
    });

    it('sends one webhook per threshold crossed, not one per instance', async () => {
      for (let i = 0; i < 10; i++) {
        const response = await [a.app, b.app][i % 2]?.inject({
          method: 'POST',
          url: '/v1/chat/completions',
          headers: bearer(token),
          payload: { model: 'gpt-5.4@developer', messages: [{ role: 'user', content: 'hi' }], max_tokens: 5 },
        });
        assert.equal(response?.statusCode, 200, response?.body);
      }
      await waitFor(() => receiver.delivered.length >= 2, 10_000);
      // Several more check rounds of both instances.
      await new Promise((resolve) => setTimeout(resolve, 500));
      const thresholds = receiver.delivered.map(
        (r) => (JSON.parse(r.body) as { threshold_percent: number }).threshold_percent,
      );
      assert.deepEqual(thresholds.sort(), [50, 80]);
      assert.equal(new Set(receiver.requests.map((r) => r.key)).size, 2, 'two alerts in all');
      const rows = await a.database.db.selectFrom('budget_alerts').select('threshold').execute();
      assert.equal(rows.length, 2);
    });
  });
}
