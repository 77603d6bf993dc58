/**
 * A scrape of a default start-up (SQLite, the bundled simulator, process metrics on) after
 * requests of every kind (every front door, JSON and streamed, an upstream failure, pages,
 * assets, docs, probes and errors): it stays small (Prometheus reads it every 15 s or so from
 * every instance), and docs/gateway/metrics.md lists exactly its series.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { startSimulator } from '@app/upstream-simulator';
import { seedDemoOnFirstStart } from '../access/demo.ts';
import { buildApp } from '../app.ts';
import { loadGatewayConfig } from '../config.ts';
import { type PromMetrics, scrape } from './testing.ts';

const LIMIT_BYTES = 40 * 1024;

const json = (model: string, extra: Record<string, unknown> = {}) =>
  JSON.stringify({ model, messages: [{ role: 'user', content: 'Hello' }], max_tokens: 16, ...extra });
const gemini = JSON.stringify({ contents: [{ role: 'user', parts: [{ text: 'Hello' }] }] });

/** [method, url, body]: each front door (JSON and streamed), listings, pages, assets, probes, errors. */
const REQUESTS: ReadonlyArray<readonly [string, string, string?]> = [
  ['POST', '/v1/chat/completions', json('gpt-5.4-mini')],
  ['POST', '/v1/chat/completions', json('claude-sonnet', { stream: true })],
  ['POST', '/v1/chat/completions', json('no-such-model')],
  ['POST', '/v1/chat/completions', json('gpt-5.4@cloud_c', { x_simulator: { fail_status: 400 } })],
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

let scraped: { readonly text: string; readonly metrics: PromMetrics };

before(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-scrape-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));
  const config = loadGatewayConfig(
    {},
    { overrides: { dataDir, databaseUrl: `sqlite:${join(dataDir, 'gateway.db')}`, logLevel: 'silent' } },
  );
  const sim = await startSimulator({ behaviour: { firstTokenDelayMs: 0, tokenDelayMs: 0 } });
  after(() => sim.close());
  const app = await buildApp(config, { simulatorUrl: sim.url, env: sim.credentialEnv });
  after(() => app.close());
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
  scraped = { text: (await app.inject({ url: '/metrics' })).body, metrics: await scrape(app) };
});

test('a scrape of a default start-up stays under 40 KB after requests of every kind', (t) => {
  const { text, metrics } = scraped;
  assert.ok(metrics.gateway_process_cpu_seconds_total, 'process metrics are kept');
  assert.ok(metrics.gateway_tokens_total?.data.length, 'the requests were counted');
  const bytes = Buffer.byteLength(text);
  t.diagnostic(`scrape: ${bytes} bytes`);
  assert.ok(bytes < LIMIT_BYTES, `${bytes} bytes`);
});

/** A row of the page's series table: a name (or a `prefix_*` family), its type and labels. */
interface Documented {
  readonly name: string;
  readonly types: readonly string[];
  readonly labels: readonly string[] | undefined;
}

const PAGE = readFileSync(
  fileURLToPath(new URL('../../../../docs/gateway/metrics.md', import.meta.url)),
  'utf8',
);

function documentedSeries(): Documented[] {
  const rows = PAGE.split('\n').filter((line) => line.startsWith('| `gateway_'));
  return rows.map((row) => {
    const [name = '', type = '', labels = ''] = row
      .split('|')
      .slice(1)
      .map((cell) => cell.trim());
    const names = [...labels.matchAll(/`(\w+)`/g)].map((match) => match[1] ?? '');
    return {
      name: name.replaceAll('`', ''),
      types: type.split(',').map((entry) => entry.trim()),
      labels: labels === 'various' ? undefined : names,
    };
  });
}

const covers = (entry: Documented, name: string) =>
  entry.name.endsWith('*') ? name.startsWith(entry.name.slice(0, -1)) : entry.name === name;

test('docs/gateway/metrics.md lists every series of a scrape, with its type and labels', () => {
  const documented = documentedSeries();
  const names = Object.keys(scraped.metrics);
  for (const name of names) {
    const entry = documented.find((candidate) => covers(candidate, name));
    assert.ok(entry, `${name} is not documented`);
    const family = scraped.metrics[name];
    assert.ok(entry.types.includes(family?.type ?? ''), `${name} is a ${family?.type}`);
    if (entry.labels === undefined) continue;
    for (const sample of family?.data ?? [])
      assert.deepEqual(Object.keys(sample.labels).sort(), [...entry.labels].sort(), `labels of ${name}`);
  }
  for (const entry of documented)
    assert.ok(
      names.some((name) => covers(entry, name)),
      `${entry.name} is documented but not in a scrape`,
    );
});

test("the page's PromQL queries name real series", () => {
  const queries = [...PAGE.matchAll(/```promql\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
  assert.ok(queries.length >= 2);
  const names = new Set(Object.keys(scraped.metrics));
  for (const query of queries) {
    const used = [...query.matchAll(/\b(gateway_\w+)/g)].map((match) => match[1] ?? '');
    assert.ok(used.length > 0, query);
    for (const series of used) {
      const family = series.replace(/_(bucket|sum|count)$/, '');
      const isHistogramPart = family !== series && scraped.metrics[family]?.type === 'histogram';
      assert.ok(names.has(series) || isHistogramPart, `${series} in: ${query}`);
    }
  }
});
