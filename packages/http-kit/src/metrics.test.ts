import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { getMetricsFromIterator, type PromHistogramData } from 'prom2javascript';
import { buildTestApp } from './test-app.ts';

async function scrape(app: FastifyInstance) {
  const text = (await app.inject({ url: '/metrics' })).body;
  return getMetricsFromIterator(text.split('\n')[Symbol.iterator]());
}

const routesOf = (data: ReadonlyArray<{ labels: Record<string, string> }> = []) =>
  [...new Set(data.map((entry) => entry.labels.route))].sort();

describe('HTTP metrics', () => {
  it('time every route by default', async (t) => {
    const { app } = await buildTestApp();
    t.after(() => app.close());
    await app.inject({ url: '/slow?ms=1' });
    await app.inject({ url: '/teapot' });
    const metrics = await scrape(app);
    assert.deepEqual(routesOf(metrics.kit_test_http_request_duration_seconds?.data), ['/slow', '/teapot']);
  });

  it('time only the routes a service chooses, with its buckets; every route is still counted', async (t) => {
    const { app } = await buildTestApp({
      httpMetrics: { timedRoute: (route) => route === '/slow', durationBuckets: [0.5, 5] },
    });
    t.after(() => app.close());
    await app.inject({ url: '/slow?ms=1' });
    await app.inject({ url: '/teapot' });
    const metrics = await scrape(app);
    assert.deepEqual(routesOf(metrics.kit_test_http_requests_total?.data), ['/slow', '/teapot']);
    const timed = (metrics.kit_test_http_request_duration_seconds?.data ?? []) as PromHistogramData[];
    assert.deepEqual(routesOf(timed), ['/slow']);
    assert.deepEqual(Object.keys(timed[0]?.buckets ?? {}).sort(), ['+Inf', '0.5', '5']);
  });
});
