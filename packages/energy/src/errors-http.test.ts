import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { energyHarness, type Harness } from './testing/harness.ts';

/** The 400 family carries its catalogue code in both formats. */
describe('bad requests', () => {
  let h: Harness;
  let token: string;
  before(async () => {
    h = await energyHarness('sqlite');
    ({ token } = await h.user());
  });
  after(() => h?.close());

  test('malformed JSON: 400 bad_request in JSON', async () => {
    const response = await h.app.inject({
      method: 'POST',
      url: `/api/v1/buildings.json?token=${token}`,
      headers: { 'content-type': 'application/json' },
      payload: '{"name": ',
    });
    assert.equal(response.statusCode, 400);
    assert.equal(response.json().error.code, 'bad_request');
  });

  test('XML with a DOCTYPE: 400 bad_request in XML, nothing stored', async () => {
    const response = await h.app.inject({
      method: 'POST',
      url: `/api/v1/buildings.xml?token=${token}`,
      headers: { 'content-type': 'application/xml' },
      payload: '<?xml version="1.0"?><!DOCTYPE b [<!ENTITY x "y">]><building><name>&x;</name></building>',
    });
    assert.equal(response.statusCode, 400);
    assert.match(response.body, /<code>bad_request<\/code>/);
    const list = await h.app.inject({ url: `/api/v1/buildings.json?token=${token}` });
    assert.deepEqual(list.json(), []);
  });

  test("a malformed or over-long path is 400 bad_request in the service's format, never Fastify's", async () => {
    for (const url of [
      '/api/v1/buildings/%',
      '/api/v1/operations/%ff',
      `/api/v1/operations/${'1'.repeat(200)}`,
    ]) {
      const response = await h.app.inject({ url: `${url}?token=${token}` });
      assert.equal(response.statusCode, 400, url);
      assert.equal(response.json().error.code, 'bad_request');
      assert.doesNotMatch(response.body, /FST_|statusCode/);
    }
  });
});

describe('load shedding', () => {
  test('memory over its bound: 503 service_unavailable with Retry-After; health still answers', async (t) => {
    const shedding = { maxEventLoopDelayMs: 0, maxHeapUsedBytes: 1, maxInFlight: 0, retryAfterSeconds: 3 };
    const h = await energyHarness('sqlite', { shedding });
    t.after(() => h.close());
    await new Promise((resolve) => setTimeout(resolve, 250));
    const shed = await h.app.inject({ url: '/api/v1/fan_controls.json' });
    assert.equal(shed.statusCode, 503, shed.body);
    assert.equal(shed.json().error.code, 'service_unavailable');
    assert.equal(shed.headers['retry-after'], '3');
    assert.equal((await h.app.inject({ url: '/readyz' })).statusCode, 503);
    assert.equal((await h.app.inject({ url: '/healthz' })).statusCode, 200);
  });
});
