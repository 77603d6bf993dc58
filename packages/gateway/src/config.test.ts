import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { ConfigError, PROJECT_ROOT } from '@app/http-kit';
import { loadGatewayConfig } from './config.ts';

describe('gateway configuration', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gw-config-'));
  after(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('has working embedded defaults', () => {
    const config = loadGatewayConfig({});
    assert.equal(config.port, 8080);
    // Relative defaults are from the project directory, wherever the process runs.
    assert.equal(config.databaseUrl, `sqlite:${join(PROJECT_ROOT, 'data/gateway.db')}`);
    assert.equal(config.dataDir, join(PROJECT_ROOT, 'data'));
    assert.equal(config.redisUrl, undefined);
    assert.ok(Object.isFrozen(config.access));
  });

  it('reads GATEWAY_CONFIG_FILE, with environment variables winning over it', () => {
    const path = file(
      'gateway.json',
      JSON.stringify({ port: 9000, logLevel: 'warn', routing: { stickyIdleSeconds: 60 } }),
    );
    const config = loadGatewayConfig({ GATEWAY_CONFIG_FILE: path, GATEWAY_PORT: '9100' });
    assert.equal(config.port, 9100);
    assert.equal(config.logLevel, 'warn');
    assert.equal(config.routing.stickyIdleSeconds, 60);
  });

  it('names the variable of every bad value', () => {
    assert.throws(
      () =>
        loadGatewayConfig({ GATEWAY_PORT: 'http', REDIS_URL: 'localhost:6379', GATEWAY_LOG_LEVEL: 'loud' }),
      (error: unknown) =>
        error instanceof ConfigError &&
        ['GATEWAY_PORT', 'REDIS_URL', 'GATEWAY_LOG_LEVEL'].every((name) => error.message.includes(name)),
    );
  });

  it('rejects unknown keys, unreadable files and non-JSON files clearly', () => {
    const unknown = file('unknown.json', JSON.stringify({ prot: 8080 }));
    assert.throws(() => loadGatewayConfig({ GATEWAY_CONFIG_FILE: unknown }), ConfigError);
    assert.throws(
      () => loadGatewayConfig({ GATEWAY_CONFIG_FILE: join(dir, 'missing.json') }),
      /cannot be read/,
    );
    assert.throws(
      () => loadGatewayConfig({ GATEWAY_CONFIG_FILE: file('bad.json', '{port: 1') }),
      /not valid JSON/,
    );
    assert.throws(() => loadGatewayConfig({ GATEWAY_CONFIG_FILE: file('list.json', '[1]') }), /JSON object/);
  });
});
