/**
 * Budget alert webhooks from two gateway instances on one database: one delivery per crossing
 * reaches a receiver that was down and then answered 503, signed, with the same idempotency key
 * on every attempt; an allocation set again alerts again; the log names no secret and no URL.
 */
import assert from 'node:assert/strict';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Database, openDatabase } from '@app/db';
import { type IsolatedDatabase, isolatedDatabase, testEngines } from '@app/db/testing.ts';
import type { App } from '@app/http-kit';
import { addProject, setAllocation } from '../access/admin.ts';
import { buildApp } from '../app.ts';
import { loadGatewayConfig } from '../config.ts';
import type { GatewayDatabase } from '../db/schema.ts';
import { setAlertSettings } from './settings.ts';
import { verifySignature } from './signature.ts';
import { LOCAL_RECEIVERS, type Receiver, waitFor, webhookReceiver } from './testing.ts';

const ALERTS = {
  checkMs: 50,
  retryBaseMs: 50,
  retryCapMs: 200,
  timeoutMs: 1_000,
  allowHttp: 'loopback',
  allowPrivate: true,
};

for (const { engine, skip } of testEngines()) {
  describe(`budget alert webhooks from two instances on ${engine}`, { skip }, () => {
    let isolated: IsolatedDatabase<GatewayDatabase>;
    let second: Database<GatewayDatabase>;
    let apps: App[];
    let receiver: Receiver;
    let secret: string;
    let dataDir: string;
    const logs: string[] = [];
    const logStream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        logs.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });

    before(async () => {
      receiver = await webhookReceiver({ failures: 2 });
      isolated = await isolatedDatabase<GatewayDatabase>(engine);
      dataDir = mkdtempSync(join(tmpdir(), 'gw-alerts-'));
      const overrides = { dataDir, logLevel: 'info', access: { demoSeed: false }, alerts: { ...ALERTS } };
      const config = loadGatewayConfig({}, { overrides });
      second = await openDatabase<GatewayDatabase>(
        isolated.url,
        isolated.schema ? { schema: isolated.schema } : {},
      );
      const build = { defaultMetrics: false, logStream };
      apps = [
        await buildApp(config, { ...build, database: isolated.database }),
        await buildApp(config, { ...build, database: second }),
      ];
      const db = isolated.database.db;
      await addProject(db, { slug: 'alerted' });
      await setAllocation(db, { slug: 'alerted', provider: 'developer', usd: 10 });
      const set = await setAlertSettings(db, LOCAL_RECEIVERS, {
        slug: 'alerted',
        thresholds: '50,80,100',
        webhookUrl: receiver.url,
      });
      assert.ok(set.newSecret?.startsWith('whsec_'));
      secret = set.newSecret ?? '';
    });
    after(async () => {
      for (const app of apps) await app.close();
      await second.close();
      await isolated.drop();
      await receiver.down();
      rmSync(dataDir, { recursive: true, force: true });
    });

    /** Spend as the ledger's group commits write it. */
    const spend = (micros: number) =>
      isolated.database.db
        .updateTable('allocations')
        .set((eb) => ({ spent_micros: eb('spent_micros', '+', micros) }))
        .where('provider', '=', 'developer')
        .execute();
    const alerts = () =>
      isolated.database.db
        .selectFrom('budget_alerts')
        .select(['threshold', 'delivery', 'attempts', 'epoch'])
        .execute();

    it('sends one signed webhook per threshold crossed once the receiver is up, with a stable idempotency key', async () => {
      await spend(5_000_000);
      await waitFor(async () => (await alerts()).some((row) => Number(row.attempts) >= 1));
      assert.equal(receiver.requests.length, 0, 'the port was closed');
      await receiver.up();
      await waitFor(() => receiver.delivered.length === 1);
      await spend(3_500_000);
      await waitFor(() => receiver.delivered.length === 2);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(receiver.delivered.length, 2, 'no duplicate: 50% and 80%, not 100%');
      const bodies = receiver.delivered.map((r) => JSON.parse(r.body) as Record<string, unknown>);
      assert.deepEqual(
        bodies.map((body) => [body.project, body.provider, body.threshold_percent, body.allocated_usd]),
        [
          ['alerted', 'developer', 50, 10],
          ['alerted', 'developer', 80, 10],
        ],
      );
      assert.deepEqual([bodies[1]?.spent_usd, bodies[1]?.remaining_usd], [8.5, 1.5]);
      for (const received of receiver.requests)
        assert.ok(verifySignature(secret, received.signature, received.body), 'signature verifies');
      assert.ok(
        !verifySignature(
          'whsec_other',
          receiver.delivered[0]?.signature ?? '',
          receiver.delivered[0]?.body ?? '',
        ),
      );
      const first = receiver.delivered[0]?.key;
      const tries = receiver.requests.filter((r) => r.key === first);
      assert.ok(tries.length >= 2, 'the 503s were retried');
      assert.ok(
        tries.every((r) => JSON.parse(r.body).id === first),
        'one key across retries, = payload id',
      );
      const rows = await alerts();
      assert.deepEqual(rows.map((row) => [Number(row.threshold), row.delivery]).sort(), [
        [50, 'delivered'],
        [80, 'delivered'],
      ]);
    });

    it('an allocation set again starts a new epoch: the thresholds it is past alert again', async () => {
      await setAllocation(isolated.database.db, { slug: 'alerted', provider: 'developer', usd: 12 });
      // 8.5 of 12 is 70%: 50% again, not 80%.
      await waitFor(() => receiver.delivered.length === 3);
      await new Promise((resolve) => setTimeout(resolve, 300));
      assert.equal(receiver.delivered.length, 3);
      const third = JSON.parse(receiver.delivered[2]?.body ?? '{}') as Record<string, unknown>;
      assert.deepEqual([third.threshold_percent, third.allocated_usd], [50, 12]);
    });

    it('logs each crossing as a warning without the secret or the URL', async () => {
      const all = logs.join('');
      assert.ok(!all.includes(secret) && !all.includes('source=gateway') && !all.includes('/hooks/budget'));
      const crossings = logs
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((line) => line.msg === 'budget alert: threshold crossed');
      assert.deepEqual(
        // Each instance batches its log writes: the two streams' lines may interleave late.
        crossings.map((line) => Number(line.threshold)).sort((x, y) => x - y),
        [50, 50, 80],
        'one line per crossing from the two instances together',
      );
      for (const line of crossings) {
        assert.equal(line.level, 40);
        assert.equal(line.project, 'alerted');
      }
    });
  });
}
