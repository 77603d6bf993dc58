import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { test } from 'node:test';
import { isAppError } from '@app/http-kit';
import pino from 'pino';
import { loadGatewayConfig } from '../config.ts';
import { CatalogError } from './catalog.ts';
import { bundledCatalogFile, principal, SIMULATED_ENV, startRouting } from './testing.ts';

test('routing settings come from their environment variables', () => {
  const config = loadGatewayConfig({
    GATEWAY_CATALOG_PATH: '/etc/gw/models.json',
    GATEWAY_UPSTREAMS_PATH: '/etc/gw/upstreams.json',
    GATEWAY_STICKY_IDLE_SECONDS: '120',
    GATEWAY_STICKY_MAX_ENTRIES: '500',
    GATEWAY_BREAKER_FAILURES: '7',
    GATEWAY_BREAKER_COOLDOWN_MS: '1500',
  });
  assert.deepEqual(config.routing, {
    catalogPath: '/etc/gw/models.json',
    upstreamsPath: '/etc/gw/upstreams.json',
    stickyIdleSeconds: 120,
    stickyMaxEntries: 500,
    breakerFailures: 7,
    breakerCooldownMs: 1500,
  });
  assert.deepEqual(loadGatewayConfig({}).routing, {
    stickyIdleSeconds: 3600,
    stickyMaxEntries: 100_000,
    breakerFailures: 5,
    breakerCooldownMs: 30_000,
  });
});

test('start-up fails with every catalog problem named, before serving anything', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'routing-'));
  try {
    const broken = bundledCatalogFile();
    delete (broken.models[0] as Record<string, unknown>).contextWindow;
    writeFileSync(join(dir, 'models.json'), JSON.stringify(broken));
    writeFileSync(join(dir, 'bad.json'), '{ "families": [');
    const start = (catalogPath: string) => startRouting({ GATEWAY_CATALOG_PATH: catalogPath });
    await assert.rejects(start(join(dir, 'models.json')), (error: unknown) => {
      assert.ok(error instanceof CatalogError);
      assert.deepEqual(error.problems, ['models[0].contextWindow: required']);
      assert.match(error.message, /models\.json/);
      return true;
    });
    await assert.rejects(start(join(dir, 'bad.json')), /not valid JSON/);
    await assert.rejects(start(join(dir, 'missing.json')), /cannot be read/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an upstream refusing the credentials opens its circuit at once, logged as a configuration fault', async () => {
  const lines: string[] = [];
  const log = pino(
    { level: 'info' },
    new Writable({
      write(chunk, _encoding, done) {
        lines.push(String(chunk));
        done();
      },
    }),
  );
  const routing = await startRouting({}, SIMULATED_ENV, { log });
  try {
    const plan = routing.router.resolve('claude-haiku@cloud_b', {});
    const selection = await routing.router.select(plan, principal(), { tools: false, webSearch: false });
    await routing.router.report(selection, principal(), plan, 'auth');
    const faults = lines
      .map((line) => JSON.parse(line) as Record<string, unknown>)
      .filter((e) => e.level === 50);
    assert.equal(faults.length, 1, lines.join(''));
    assert.equal(faults[0]?.upstream, 'cloud_b/anthropic', 'the endpoint key');
    assert.match(
      String(faults[0]?.msg),
      /configuration fault: upstream cloud_b\/anthropic refused the gateway's credentials/,
    );
    for (const secret of Object.values(SIMULATED_ENV))
      assert.ok(!lines.some((line) => line.includes(secret)), 'no credential in the log');
    await assert.rejects(
      routing.router.select(plan, principal(), { tools: false, webSearch: false }),
      (error: unknown) => isAppError(error) && error.code === 'provider_unavailable',
      'one refusal takes the endpoint out of service',
    );
  } finally {
    await routing.close();
  }
});
