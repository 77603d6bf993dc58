import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { isolatedDatabase } from '@app/db/testing.ts';
import { buildApp } from '../app.ts';
import { loadGatewayConfig } from '../config.ts';
import type { GatewayDatabase } from '../db/schema.ts';

const dir = mkdtempSync(join(tmpdir(), 'gw-access-start-'));
after(() => rmSync(dir, { recursive: true, force: true }));

async function startFails(access: Record<string, unknown>, pattern: RegExp): Promise<void> {
  const isolated = await isolatedDatabase<GatewayDatabase>('sqlite');
  try {
    const config = loadGatewayConfig({}, { overrides: { dataDir: dir, logLevel: 'silent', access } });
    await assert.rejects(buildApp(config, { database: isolated.database, defaultMetrics: false }), pattern);
  } finally {
    await isolated.drop();
  }
}

describe('access configuration checked at start-up', () => {
  it('refuses invalid allowlist and trusted-proxy entries, naming them', async () => {
    await startFails({ ipAllow: ['10.0.0.0/8,10.0.0.0/40'] }, /access\.ipAllow: .*10\.0\.0\.0\/40/);
    await startFails({ trustedProxies: ['proxy.internal'] }, /access\.trustedProxies: .*proxy\.internal/);
  });

  it('refuses a default token lifetime above the maximum', async () => {
    await startFails({ tokenTtl: '40d' }, /tokenTtl \(40d\) is longer than access\.tokenMaxTtl \(30d\)/);
  });

  it('refuses a configured signing key path that does not exist instead of generating one', async () => {
    await startFails(
      { signingKeyPath: join(dir, 'absent.json') },
      /absent\.json \(access\.signingKeyPath, GATEWAY_SIGNING_KEY_PATH\) does not exist/,
    );
  });

  it('rejects malformed durations in the configuration, naming the variable', () => {
    assert.throws(() => loadGatewayConfig({ GATEWAY_TOKEN_MAX_TTL: '30 days' }), /GATEWAY_TOKEN_MAX_TTL/);
    assert.throws(
      () => loadGatewayConfig({ GATEWAY_REVOCATION_CACHE_MS: '5000' }),
      /GATEWAY_REVOCATION_CACHE_MS/,
    );
  });
});
