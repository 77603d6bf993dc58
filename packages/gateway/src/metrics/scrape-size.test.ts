/**
 * A scrape of a default start-up (SQLite, the bundled simulator, process metrics on) stays small
 * after requests of every kind: every front door, JSON and streamed, pages, assets, docs, probes
 * and errors. Prometheus reads it every 15 s or so from every instance.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { startSimulator } from '@app/upstream-simulator';
import { seedDemoOnFirstStart } from '../access/demo.ts';
import { buildApp } from '../app.ts';
import { loadGatewayConfig } from '../config.ts';
import { scrape } from './testing.ts';

const LIMIT_BYTES = 40 * 1024;

const json = (model: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ model, messages: [{ role: 'user', content: 'Hello' }], max_tokens: 16, ...extra });
const gemini = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Hello' }] }] });

/** [method, url, body]: each front door (JSON and streamed), listings, pages, assets, probes, errors. */
const REQUESTS: ReadonlyArray<readonly [string, string, string?]> = [
  ['POST', '/v1/chat/completions', json('gpt-5.4-mini')],
  ['POST', '/v1/chat/completions', json('claude-sonnet', { stream: true })],
  ['POST', '/v1/chat/completions', json('no-such-model')],
  ['POST', '/v1/responses', JSON.stringify({ model: 'gpt-5.4', input: 'Hello', stream: true })],
  ['POST', '/v1/responses', JSON.stringify({ model: 'gemini-flash', input: 'Hello' })],
  ['POST', '/v1/messages', json('claude-haiku')],
  ['POST', '/v1/messages', json('claude-opus', { stream: true })],
  [
    'POST',
    '/v1/messages/count_tokens',
    JSON.stringify({ model: 'claude-haiku', messages: [{ role: 'user', content: 'Hi' }] }),
  ],
  ['POST', '/v1beta/models/gemini-flash:generateContent', gemini],
  ['POST', '/v1beta/models/gemini-pro:streamGenerateContent?alt=sse', gemini],
  ['GET', '/v1/models'],
  ['GET', '/v1/models/gpt-5.4'],
  ['GET', '/v1beta/models'],
  ['GET', '/v1/account'],
  ['GET', '/'],
  ['GET', '/dashboard'],
  ['GET', '/dashboard/login'],
  ['GET', '/dashboard/assets/dashboard.css'],
  ['GET', '/assets/page.css'],
  ['GET', '/favicon.ico'],
  ['GET', '/docs'],
  ['GET', '/docs/static/index.html'],
  ['GET', '/openapi.json'],
  ['GET', '/healthz'],
  ['GET', '/readyz'],
  ['GET', '/admin/v1/projects'],
  ['GET', '/no/such/page'],
];

test('a scrape of a default start-up stays under 40 KB after requests of every kind', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-scrape-'));
  t.after(() => rmSync(dataDir, { recursive: true, force: true }));
  const config = loadGatewayConfig(
    {},
    { overrides: { dataDir, databaseUrl: `sqlite:${join(dataDir, 'gateway.db')}`, logLevel: 'silent' } },
  );
  const sim = await startSimulator({ behaviour: { firstTokenDelayMs: 0, tokenDelayMs: 0 } });
  t.after(() => sim.close());
  const app = await buildApp(config, { simulatorUrl: sim.url, env: sim.credentialEnv });
  t.after(() => app.close());
  const demo = await seedDemoOnFirstStart(config);
  assert.ok(demo, 'the demo account of a first start');
  const statuses = new Set<number>();
  for (let round = 0; round < 3; round++)
    for (const [method, url, body] of REQUESTS) {
      const response = await app.inject({
        method: method as 'GET' | 'POST',
        url,
        headers: { authorization: `Bearer ${demo.token}`, 'content-type': 'application/json' },
        ...(body === undefined ? {} : { payload: body }),
      });
      statuses.add(response.statusCode);
    }
  assert.ok(statuses.has(200) && statuses.has(404) && statuses.has(401), [...statuses].join(' '));
  const text = (await app.inject({ url: '/metrics' })).body;
  const metrics = await scrape(app);
  assert.ok(metrics.gateway_process_cpu_seconds_total, 'process metrics are kept');
  assert.ok(metrics.gateway_tokens_total?.data.length, 'the requests were counted');
  const bytes = Buffer.byteLength(text);
  t.diagnostic(`scrape: ${bytes} bytes`);
  assert.ok(bytes < LIMIT_BYTES, `${bytes} bytes`);
});
