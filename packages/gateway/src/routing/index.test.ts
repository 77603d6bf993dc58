import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import pino from 'pino';
import { loadGatewayConfig } from '../config.ts';
import type { AccessControl } from '../contracts.ts';
import { SecretRedactor } from '../upstream/credentials/index.ts';
import { CatalogError } from './catalog.ts';
import { createRouting } from './index.ts';
import { bundledCatalogFile, fakeLedger, SIMULATOR_URL } from './testing.ts';

const access: AccessControl = {
  authenticate: async () => {
    throw new Error('not used');
  },
};
const log = pino({ level: 'silent' });

test('routing settings come from their environment variables', () => {
  const config = loadGatewayConfig({
    GATEWAY_CATALOG_PATH: '/etc/gw/models.json',
    GATEWAY_UPSTREAMS_PATH: '/etc/gw/upstreams.json',
    GATEWAY_STICKY_IDLE_SECONDS: '120',
    GATEWAY_BREAKER_FAILURES: '7',
    GATEWAY_BREAKER_COOLDOWN_MS: '1500',
  });
  assert.deepEqual(config.routing, {
    catalogPath: '/etc/gw/models.json',
    upstreamsPath: '/etc/gw/upstreams.json',
    stickyIdleSeconds: 120,
    breakerFailures: 7,
    breakerCooldownMs: 1500,
  });
  assert.deepEqual(loadGatewayConfig({}).routing, {
    stickyIdleSeconds: 3600,
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
    const start = (catalogPath: string) =>
      createRouting({
        config: loadGatewayConfig({}, { overrides: { routing: { catalogPath } } }).routing,
        redis: undefined,
        ledger: fakeLedger().ledger,
        access,
        simulatorUrl: SIMULATOR_URL,
        log,
        env: {},
        secrets: new SecretRedactor(),
      });
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
