/**
 * Webhook attempts that fail: a redirect is not followed, a receiver that does not answer is
 * given up on after the timeout, a huge answer is not read, and an alert never delivered is
 * marked failed after `giveUpMs` and logged at level error. The retry waits double, are capped,
 * and are jittered.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { type IsolatedDatabase, isolatedDatabase } from '@app/db/testing.ts';
import type { App } from '@app/http-kit';
import { addProject, setAllocation } from '../access/admin.ts';
import { buildApp } from '../app.ts';
import { loadGatewayConfig } from '../config.ts';
import type { GatewayDatabase } from '../db/schema.ts';
import { retryDelayMs } from './deliver.ts';
import { setAlertSettings } from './settings.ts';
import { LOCAL_RECEIVERS, waitFor } from './testing.ts';

describe('retry waits', () => {
  const options = { retryBaseMs: 1_000, retryCapMs: 10_000, giveUpMs: 86_400_000, timeoutMs: 1_000 };
  it('double from the base up to the cap, each between half and all of it', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5, 9].map((attempts) => retryDelayMs(attempts, options, () => 1)),
      [1_000, 2_000, 4_000, 8_000, 10_000, 10_000],
    );
    assert.equal(
      retryDelayMs(3, options, () => 0),
      2_000,
    );
    assert.equal(
      retryDelayMs(60, options, () => 0.5),
      7_500,
    );
  });
});

describe('failing webhook attempts', () => {
  let isolated: IsolatedDatabase<GatewayDatabase>;
  let app: App;
  let server: Server;
  let dataDir: string;
  const hits: string[] = [];
  const logs: Array<Record<string, unknown>> = [];
  let answers: Array<'redirect' | 'hang' | 'huge' | 'fail'>;

  before(async () => {
    answers = ['redirect', 'hang', 'fail'];
    server = createServer((req, res) => {
      hits.push(req.url ?? '');
      const answer = answers.shift() ?? 'huge';
      if (answer === 'redirect') return void res.writeHead(307, { location: '/elsewhere' }).end();
      if (answer === 'hang') return; // never answers: the attempt times out
      if (answer === 'huge') {
        res.writeHead(500, { 'content-type': 'text/plain' });
        return void res.end('x'.repeat(5_000_000));
      }
      res.writeHead(503).end('down for maintenance');
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    isolated = await isolatedDatabase<GatewayDatabase>('sqlite');
    dataDir = mkdtempSync(join(tmpdir(), 'gw-alert-failures-'));
    const alerts = {
      checkMs: 50,
      retryBaseMs: 50,
      retryCapMs: 100,
      timeoutMs: 1_500,
      giveUpMs: 6_000,
      allowHttp: 'loopback',
      allowPrivate: true,
    };
    const config = loadGatewayConfig({}, { overrides: { dataDir, logLevel: 'info', alerts } });
    const logStream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean))
          logs.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    });
    app = await buildApp(config, { database: isolated.database, defaultMetrics: false, logStream });
    const db = isolated.database.db;
    await addProject(db, { slug: 'flaky' });
    await setAllocation(db, { slug: 'flaky', provider: 'cloud_a', usd: 1 });
    await setAlertSettings(db, LOCAL_RECEIVERS, {
      slug: 'flaky',
      thresholds: '50',
      webhookUrl: `http://127.0.0.1:${port}/hook?key=s3cr3t`,
    });
    await db.updateTable('allocations').set({ spent_micros: 600_000 }).execute();
  });
  after(async () => {
    await app.close();
    server.closeAllConnections();
    server.close();
    await isolated.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const alert = () =>
    isolated.database.db
      .selectFrom('budget_alerts')
      .select(['delivery', 'attempts', 'last_error'])
      .executeTakeFirst();

  it('records each failure, follows no redirect, then gives up and logs it as an error', async () => {
    await waitFor(async () => (await alert())?.delivery === 'failed', 15_000);
    assert.ok(!hits.includes('/elsewhere'), 'the redirect was not followed');
    assert.ok(hits.length >= 4, `${hits.length} attempts`);
    assert.ok(hits.every((url) => url === '/hook?key=s3cr3t'));
    const row = await alert();
    assert.match(row?.last_error ?? '', /^HTTP 500: x{1000,1024}$/, 'at most 1 KiB of the answer is kept');
    assert.equal(Number(row?.attempts), hits.length);
    const givenUp = logs.filter((line) => line.msg === 'budget alert webhook failed: giving up');
    assert.equal(givenUp.length, 1);
    assert.equal(givenUp[0]?.level, 50);
    assert.deepEqual(
      [givenUp[0]?.project, givenUp[0]?.provider, givenUp[0]?.threshold, givenUp[0]?.host],
      ['flaky', 'cloud_a', 50, `127.0.0.1:${(server.address() as AddressInfo).port}`],
    );
    assert.ok(!JSON.stringify(logs).includes('s3cr3t'), 'the query is never logged');
  });

  it('logged each failure by its status or code only, the hanging one as a timeout', async () => {
    const errors = logs.filter((line) => line.msg === 'budget alert webhook attempt failed');
    const reasons = errors.map((line) => String(line.error));
    assert.equal(reasons[0], 'HTTP 307');
    assert.match(reasons[1] ?? '', /Timeout|Abort/i);
    assert.equal(reasons[2], 'HTTP 503', 'logs carry the status, not the answer');
    assert.ok(reasons.slice(3).every((reason) => reason === 'HTTP 500'));
    assert.ok(
      !JSON.stringify(logs).includes('down for maintenance') && !JSON.stringify(logs).includes('xxxx'),
    );
  });
});

describe('shutting down during an attempt', () => {
  it('aborts it at once and leaves the alert pending for any instance, its attempt recorded', async () => {
    const hits: string[] = [];
    const server = createServer((req) => void hits.push(req.url ?? ''));
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    const isolated = await isolatedDatabase<GatewayDatabase>('sqlite');
    const dataDir = mkdtempSync(join(tmpdir(), 'gw-alert-shutdown-'));
    try {
      const alerts = { checkMs: 50, timeoutMs: 30_000, allowHttp: 'loopback', allowPrivate: true };
      const config = loadGatewayConfig({}, { overrides: { dataDir, logLevel: 'silent', alerts } });
      const app = await buildApp(config, { database: isolated.database, defaultMetrics: false });
      const db = isolated.database.db;
      await addProject(db, { slug: 'stopping' });
      await setAllocation(db, { slug: 'stopping', provider: 'cloud_b', usd: 1 });
      await setAlertSettings(db, LOCAL_RECEIVERS, {
        slug: 'stopping',
        webhookUrl: `http://127.0.0.1:${port}/`,
      });
      await db.updateTable('allocations').set({ spent_micros: 900_000 }).execute();
      await waitFor(() => hits.length === 2, 5_000);
      const started = performance.now();
      await app.close();
      const closedInMs = performance.now() - started;
      assert.ok(closedInMs < 10_000, `closed in ${Math.round(closedInMs)} ms despite the 30 s timeout`);
      const rows = await db
        .selectFrom('budget_alerts')
        .select(['delivery', 'attempts', 'lease_until'])
        .execute();
      assert.deepEqual(
        rows.map((row) => [row.delivery, Number(row.attempts), row.lease_until]),
        [
          ['pending', 1, null],
          ['pending', 1, null],
        ],
      );
    } finally {
      server.closeAllConnections();
      server.close();
      await isolated.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
