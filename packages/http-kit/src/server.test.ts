import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import type { FastifyInstance } from 'fastify';
import { buildTestApp } from './test-app.ts';

describe('createServer', () => {
  let app: FastifyInstance;
  let logs: () => string;
  before(async () => {
    ({ app, logs } = await buildTestApp());
    await app.ready();
  });
  after(() => app.close());

  it('renders catalogued errors in the service format with their headers', async () => {
    const response = await app.inject({ method: 'GET', url: '/teapot' });
    assert.equal(response.statusCode, 418);
    assert.equal(response.headers['retry-after'], '3');
    assert.deepEqual(response.json(), { error: { code: 'teapot', message: 'this server is a teapot' } });
  });

  it('answers unexpected errors with a bare 500: no message, stack or path leaks', async () => {
    const response = await app.inject({ method: 'GET', url: '/crash' });
    assert.equal(response.statusCode, 500);
    assert.deepEqual(response.json(), { error: { code: 'internal', message: 'Internal server error.' } });
    assert.doesNotMatch(response.body, /hunter2|secret\.ts|at /);
    assert.match(logs(), /hunter2/, 'the real error is logged for operators');
  });

  it('answers malformed JSON with 400 in the service format', async () => {
    const response = await app.inject({
      method: 'POST',
      url: '/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"name": ',
    });
    assert.equal(response.statusCode, 400);
    assert.equal(response.json().error.code, 'bad_input');
    assert.match(response.json().error.message, /could not be parsed/);
  });

  it('answers schema violations with 400 naming the field', async () => {
    const response = await app.inject({ method: 'POST', url: '/echo', payload: { name: '' } });
    assert.equal(response.statusCode, 400);
    assert.match(response.json().error.message, /name/);
  });

  it('answers bodies over the limit with 413', async () => {
    const response = await app.inject({ method: 'POST', url: '/echo', payload: { name: 'x'.repeat(5000) } });
    assert.equal(response.statusCode, 413);
    assert.equal(response.json().error.code, 'too_big');
  });

  it('answers unknown routes with the catalogue not-found error', async () => {
    const response = await app.inject({ method: 'GET', url: '/nowhere' });
    assert.equal(response.statusCode, 404);
    assert.equal(response.json().error.code, 'not_here');
  });

  it('echoes an incoming request id and generates one otherwise', async () => {
    const given = await app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'abc-123' },
    });
    assert.equal(given.headers['x-request-id'], 'abc-123');
    const generated = await app.inject({ method: 'GET', url: '/healthz' });
    assert.match(String(generated.headers['x-request-id']), /^[0-9a-f-]{36}$/);
  });

  it('redacts credentials from the logs', async () => {
    await app.inject({
      method: 'GET',
      url: '/healthz?token=sekrit-query-token',
      headers: { authorization: 'Bearer sekrit-bearer', cookie: 'session=sekrit-cookie' },
    });
    const text = logs();
    assert.match(text, /\/healthz\?token=\[redacted\]/);
    assert.doesNotMatch(text, /sekrit/);
  });

  it('writes one access-log line per request, with status and time', async () => {
    await app.inject({ method: 'GET', url: '/teapot', headers: { 'x-request-id': 'one-line-check' } });
    const lines = logs()
      .split('\n')
      .filter((line) => line.includes('"one-line-check"'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    assert.equal(lines.length, 1, JSON.stringify(lines));
    assert.equal(lines[0]?.statusCode, 418);
    assert.equal(lines[0]?.url, '/teapot');
    assert.equal(typeof lines[0]?.responseTime, 'number');
  });

  it('exposes Prometheus metrics per route pattern and status', async () => {
    await app.inject({ method: 'GET', url: '/teapot' });
    const response = await app.inject({ method: 'GET', url: '/metrics' });
    assert.equal(response.statusCode, 200);
    assert.match(String(response.headers['content-type']), /^text\/plain; version=0\.0\.4/);
    assert.match(
      response.body,
      /kit_test_http_requests_total\{method="GET",route="\/teapot",status="418"\} \d+/,
    );
    assert.match(
      response.body,
      /kit_test_http_request_duration_seconds_bucket\{le="0\.005",method="GET",route="\/teapot",status="418"\}/,
    );
  });

  it('serves a valid OpenAPI 3.1 document describing the routes', async () => {
    const response = await app.inject({ method: 'GET', url: '/openapi.json' });
    const document = response.json();
    assert.equal(document.openapi, '3.1.0');
    assert.ok(document.paths['/echo']?.post, 'routes appear in the document');
    const result = await new Validator().validate(document);
    assert.equal(result.valid, true, JSON.stringify(result.errors));
  });

  it('serves the docs UI and its assets from the service itself', async () => {
    const page = await app.inject({ method: 'GET', url: '/docs/' });
    assert.equal(page.statusCode, 200);
    assert.match(page.body, /swagger-ui/);
    assert.doesNotMatch(page.body, /https?:\/\/(?!localhost)[a-z0-9.-]+\/[^"]*\.(js|css)/i, 'no CDN assets');
    const bundle = await app.inject({ method: 'GET', url: '/docs/static/swagger-ui-bundle.js' });
    assert.equal(bundle.statusCode, 200);
  });
});

describe('the access line', () => {
  it('carries the request id and never a credential a service field names', async () => {
    const { app, logs } = await buildTestApp({
      requestLogFields: () => ({ model: 'm-1', token: 'sekrit-field', password: 'sekrit-pass' }),
    });
    try {
      await app.inject({ method: 'GET', url: '/healthz', headers: { 'x-request-id': 'access-line' } });
      const line = logs()
        .split('\n')
        .filter((text) => text.includes('"access-line"'))
        .map((text) => JSON.parse(text) as Record<string, unknown>)[0];
      assert.equal(line?.reqId, 'access-line');
      assert.equal(line?.model, 'm-1');
      assert.equal(line?.token, '[redacted]');
      assert.doesNotMatch(logs(), /sekrit/);
    } finally {
      await app.close();
    }
  });
});

describe('load shedding bounds', () => {
  it('samples the event loop and heap only when one of them is bounded', async () => {
    const bounds = { maxEventLoopDelayMs: 0, maxHeapUsedBytes: 0, maxInFlight: 8, retryAfterSeconds: 1 };
    const unbounded = await buildTestApp({ shedding: bounds });
    const bounded = await buildTestApp({ shedding: { ...bounds, maxHeapUsedBytes: 1 << 40 } });
    try {
      assert.equal(unbounded.app.hasDecorator('isUnderPressure'), false);
      assert.equal(bounded.app.hasDecorator('isUnderPressure'), true);
      assert.equal((await unbounded.app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
    } finally {
      await Promise.all([unbounded.app.close(), bounded.app.close()]);
    }
  });
});

describe('readiness', () => {
  it('answers 503 while the readiness check fails, 200 once it passes', async () => {
    let healthy = false;
    const { app } = await buildTestApp({
      ready: async () => {
        if (!healthy) throw new Error('database unreachable');
      },
    });
    try {
      assert.equal((await app.inject({ method: 'GET', url: '/readyz' })).statusCode, 503);
      assert.equal((await app.inject({ method: 'GET', url: '/healthz' })).statusCode, 200);
      healthy = true;
      assert.equal((await app.inject({ method: 'GET', url: '/readyz' })).statusCode, 200);
    } finally {
      await app.close();
    }
  });
});
