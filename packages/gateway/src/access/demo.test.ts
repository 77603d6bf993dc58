import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { openDatabase } from '@app/db';
import type { App } from '@app/http-kit';
import { buildApp } from '../app.ts';
import { type GatewayConfig, loadGatewayConfig } from '../config.ts';
import type { GatewayDatabase } from '../db/schema.ts';
import { demoInstructions, seedDemoOnFirstStart } from './demo.ts';

describe('demo account on first start of the embedded default', () => {
  let dir: string;
  let config: GatewayConfig;
  let app: App;
  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gw-demo-'));
    config = loadGatewayConfig(
      { GATEWAY_DATA_DIR: dir, GATEWAY_DATABASE_URL: `sqlite:${join(dir, 'gateway.db')}` },
      { overrides: { logLevel: 'silent' } },
    );
    app = await buildApp(config, {
      database: await openDatabase<GatewayDatabase>(config.databaseUrl),
      defaultMetrics: false,
    });
  });
  after(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('creates the demo account once and prints curl lines whose token works', async () => {
    const demo = await seedDemoOnFirstStart(config);
    assert.ok(demo, 'seeded on an empty database');
    assert.equal(await seedDemoOnFirstStart(config), undefined, 'not again once users exist');
    const text = demoInstructions(demo, 'http://127.0.0.1:8080/');
    const chat = text.split('\n').find((line) => line.includes('/v1/chat/completions'));
    assert.ok(chat);
    assert.ok(
      chat.includes(
        `curl -s http://127.0.0.1:8080/v1/chat/completions -H 'Authorization: Bearer ${demo.token}'`,
      ),
    );
    assert.match(chat, /"model":"gpt-5\.4-mini"/);
    assert.match(text, /curl -s http:\/\/127\.0\.0\.1:8080\/v1\/models -H 'Authorization: Bearer /);
    const response = await app.inject({
      url: '/v1/account',
      headers: { authorization: `Bearer ${demo.token}` },
    });
    assert.equal(response.statusCode, 200);
    const body = response.json() as {
      user: { email: string };
      project: { slug: string };
      allocations: unknown[];
    };
    assert.equal(body.user.email, 'demo@example.com');
    assert.equal(body.project.slug, 'demo');
    assert.deepEqual(
      body.allocations,
      ['developer', 'cloud_a', 'cloud_b', 'cloud_c'].map((provider) => ({
        provider,
        allocated: 25,
        spent: 0,
        reserved: 0,
        remaining: 25,
      })),
    );
    const days = (demo.expiresAt.getTime() - Date.now()) / 86_400_000;
    assert.ok(days > 6.99 && days <= 7, `7-day token, got ${days}`);
  });

  it('does nothing when disabled or on PostgreSQL', async () => {
    const other = mkdtempSync(join(tmpdir(), 'gw-demo-off-'));
    try {
      const off = loadGatewayConfig({
        GATEWAY_DEMO_SEED: 'false',
        GATEWAY_DATA_DIR: other,
        GATEWAY_DATABASE_URL: `sqlite:${join(other, 'g.db')}`,
      });
      assert.equal(await seedDemoOnFirstStart(off), undefined);
      const postgres = loadGatewayConfig({ GATEWAY_DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
      assert.equal(await seedDemoOnFirstStart(postgres), undefined);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
