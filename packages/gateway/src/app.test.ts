/**
 * Framework-level errors of the gateway through its real HTTP interface: each is a catalogued
 * code in the OpenAI envelope, and an unexpected fault is a bare 500 that leaks nothing.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isolatedDatabase, type IsolatedDatabase } from '@app/db/testing.ts';
import type { App } from '@app/http-kit';
import { answered413, uploadThenRead } from '@app/http-kit/upload-client.ts';
import { seedAccount } from './access/testing.ts';
import { buildApp } from './app.ts';
import { loadGatewayConfig } from './config.ts';
import type { GatewayDatabase } from './db/schema.ts';

describe('gateway framework errors', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'gw-app-'));
  let isolated: IsolatedDatabase<GatewayDatabase>;
  let app: App;
  let token: string;

  before(async () => {
    isolated = await isolatedDatabase<GatewayDatabase>('sqlite');
    const config = loadGatewayConfig(
      {},
      { overrides: { dataDir, logLevel: 'silent', bodyLimitBytes: 4096 } },
    );
    app = await buildApp(config, { database: isolated.database, defaultMetrics: false });
    ({ token } = await seedAccount(isolated.database, {
      email: 'errors@example.com',
      projectSlug: 'errors',
      allocations: { developer: 5 },
      config,
    }));
  });
  after(async () => {
    await app.close();
    await isolated.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });
  it("a malformed or over-long path is 400 invalid_request in the OpenAI envelope, never Fastify's", async () => {
    for (const url of ['/v1/models/%ff', '/v1/models/%', `/v1/models/${'a'.repeat(200)}`]) {
      const response = await app.inject({ url, headers: { authorization: `Bearer ${token}` } });
      assert.equal(response.statusCode, 400, url);
      assert.equal(response.json().error.code, 'invalid_request');
      assert.equal(response.json().error.type, 'invalid_request_error');
      assert.doesNotMatch(response.body, /FST_|statusCode/);
    }
  });

  const post = (payload: string, contentType = 'application/json') =>
    app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: { authorization: `Bearer ${token}`, 'content-type': contentType },
      payload,
    });

  function assertEnvelope(body: unknown, code: string, type: string): void {
    const error = (body as { error: Record<string, unknown> }).error;
    assert.equal(error.code, code);
    assert.equal(error.type, type);
    assert.equal(typeof error.message, 'string');
    assert.ok('param' in error);
  }

  it('unknown route: 404 not_found', async () => {
    const response = await app.inject({
      method: 'GET',
      url: '/v1/engines',
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(response.statusCode, 404);
    assertEnvelope(response.json(), 'not_found', 'invalid_request_error');
    assert.match(response.json().error.message, /GET \/v1\/engines/);
  });

  it('malformed JSON: 400 invalid_request', async () => {
    const response = await post('{"model": "gpt-5.4-mini", ');
    assert.equal(response.statusCode, 400);
    assertEnvelope(response.json(), 'invalid_request', 'invalid_request_error');
  });

  it('body over the limit: 413 body_too_large', async () => {
    const response = await post(
      JSON.stringify({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'x'.repeat(5000) }] }),
    );
    assert.equal(response.statusCode, 413);
    assertEnvelope(response.json(), 'body_too_large', 'invalid_request_error');
  });

  it('a 20 MB body sent whole before reading: the client reads the 413 and Connection: close, no reset', async () => {
    const origin = await app.listen({ host: '127.0.0.1', port: 0 });
    const headers = { authorization: `Bearer ${token}` };
    const bodyBytes = 20 * 1024 * 1024;
    for (const chunked of [false, true]) {
      const upload = { path: '/v1/chat/completions', headers, bodyBytes, chunked };
      const body = answered413(await uploadThenRead(origin, upload), bodyBytes);
      assertEnvelope(JSON.parse(body), 'body_too_large', 'invalid_request_error');
    }
    const upload = { path: '/v1/messages', headers, bodyBytes, chunked: true };
    const body = answered413(await uploadThenRead(origin, upload), bodyBytes);
    assert.equal(JSON.parse(body).error.type, 'request_too_large', 'the Anthropic door keeps its format');
  });

  it('a body that is not JSON: 415 unsupported_media_type', async () => {
    const response = await post('<model>gpt-5.4-mini</model>', 'application/xml');
    assert.equal(response.statusCode, 415);
    assertEnvelope(response.json(), 'unsupported_media_type', 'invalid_request_error');
  });

  it('an unexpected fault: 500 internal with nothing internal in the body', async () => {
    const broken = await isolatedDatabase<GatewayDatabase>('sqlite');
    const config = loadGatewayConfig({}, { overrides: { dataDir, logLevel: 'silent' } });
    const brokenApp = await buildApp(config, { database: broken.database, defaultMetrics: false });
    try {
      const seeded = await seedAccount(broken.database, {
        email: 'broken@example.com',
        projectSlug: 'broken',
        allocations: { developer: 5 },
        config,
      });
      // The database disappears under the running app: every query now throws.
      await broken.database.close();
      const response = await brokenApp.inject({
        method: 'GET',
        url: '/v1/account',
        headers: { authorization: `Bearer ${seeded.token}` },
      });
      assert.equal(response.statusCode, 500);
      assert.deepEqual(response.json(), {
        error: { message: 'Internal server error.', type: 'api_error', param: null, code: 'internal' },
      });
    } finally {
      await brokenApp.close().catch(() => {});
      await broken.drop();
    }
  });
});
