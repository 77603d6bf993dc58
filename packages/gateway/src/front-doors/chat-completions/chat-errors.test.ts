import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, beforeEach, describe, test } from 'node:test';
import { type ChatTestApp, startChatApp } from './testing.ts';

const messages = [{ role: 'user', content: 'hello' }];
/** What the simulator's failure messages contain; none of it may reach a client. */
const INTERNALS = /sim-node|internal\.example|10\.0\.0\.7|sk-sim|127\.0\.0\.1/;

describe('upstream errors, mapped with honest statuses', () => {
  let t: ChatTestApp;
  // Each request starts a minute after the last: a 401/403 opens the provider's circuit at once
  // (the gateway's credentials refused), and the next case must reach the upstream again through
  // the half-open trial that follows the cooldown.
  let clock = Date.now();
  beforeEach(() => {
    clock += 60_000;
  });
  before(async () => {
    // A high breaker threshold: this suite fails the same provider on purpose, many times.
    t = await startChatApp({ routing: { breakerFailures: 1000 }, now: () => clock });
  });
  after(() => t.close());

  const cases = [
    { upstream: 400, status: 400, code: 'upstream_invalid_request', type: 'invalid_request_error' },
    { upstream: 422, status: 400, code: 'upstream_invalid_request', type: 'invalid_request_error' },
    { upstream: 401, status: 502, code: 'upstream_error', type: 'api_error' },
    { upstream: 403, status: 502, code: 'upstream_error', type: 'api_error' },
    { upstream: 404, status: 502, code: 'upstream_error', type: 'api_error' },
    { upstream: 408, status: 504, code: 'upstream_timeout', type: 'api_error' },
    { upstream: 429, status: 429, code: 'rate_limited', type: 'rate_limit_error' },
    { upstream: 500, status: 502, code: 'upstream_error', type: 'api_error' },
    { upstream: 503, status: 503, code: 'upstream_overloaded', type: 'api_error' },
    { upstream: 529, status: 502, code: 'upstream_error', type: 'api_error' },
  ];
  for (const [index, expected] of cases.entries()) {
    for (const stream of [false, true]) {
      test(`upstream ${expected.upstream} -> ${expected.status} ${expected.code}${stream ? ' (stream)' : ''}`, async () => {
        const response = await t.app.inject({
          method: 'POST',
          url: '/v1/chat/completions',
          headers: t.headers(),
          payload: {
            model: 'gpt-5.4@developer',
            messages,
            stream,
            x_simulator: { fail_status: expected.upstream },
          },
        });
        assert.equal(response.statusCode, expected.status);
        const { error } = response.json();
        assert.deepEqual([error.code, error.type], [expected.code, expected.type]);
        assert.match(error.message, /developer/, 'names the provider');
        assert.doesNotMatch(response.body, INTERNALS);
        assert.equal(
          response.headers['x-gateway-applied'],
          'model="gpt-5.4-2026-03-05", provider=developer, effort=none, tier=standard, compression=off',
        );
        const rows = await t.settledUsage(index * 2 + (stream ? 2 : 1));
        assert.deepEqual(
          [rows.at(-1)?.status, rows.at(-1)?.cost_micros],
          ['error', 0],
          'reservation released',
        );
      });
    }
  }

  test('429 passes Retry-After through; the client-error message keeps its substance, scrubbed', async () => {
    const limited = await t.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: t.headers(),
      payload: { model: 'gpt-5.4@developer', messages, x_simulator: { fail_status: 429, retry_after: '12' } },
    });
    assert.equal(limited.headers['retry-after'], '12');
    const bad = await t.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: t.headers(),
      payload: {
        model: 'gpt-5.4@developer',
        messages,
        x_simulator: {
          fail_status: 400,
          fail_message: "Invalid value for 'temperature' (see https://docs.internal.example.com/x)",
        },
      },
    });
    assert.match(bad.json().error.message, /Invalid value for 'temperature'/);
    assert.doesNotMatch(bad.json().error.message, /docs\.internal|https:/);
  });

  test('errors before any upstream call carry X-Gateway-Applied with the keys decided so far', async () => {
    const post = (model: string, headers = t.headers()) =>
      t.app.inject({ method: 'POST', url: '/v1/chat/completions', headers, payload: { model, messages } });
    const unauthenticated = await post('gpt-5.4', {});
    assert.equal(unauthenticated.statusCode, 401);
    assert.equal(unauthenticated.headers['x-gateway-applied'], '');
    const unknown = await post('no-such-model');
    assert.equal(unknown.statusCode, 404);
    assert.equal(unknown.json().error.code, 'model_not_found');
    assert.equal(unknown.headers['x-gateway-applied'], '');
    const modifier = await post('gpt-5.4:turbo');
    assert.equal(modifier.statusCode, 400);
    assert.equal(modifier.json().error.code, 'gateway_invalid_model_modifier');
    assert.equal(typeof modifier.headers['x-gateway-applied'], 'string');
  });
});

describe('unreachable upstream', () => {
  let t: ChatTestApp;
  before(async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    t = await startChatApp({ endpoint: { baseUrl: `http://127.0.0.1:${port}/v1` } });
  });
  after(() => t.close());

  test('a refused connection is a 502 that names no address', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: t.headers(),
      payload: { model: 'gpt-5.4@developer', messages },
    });
    assert.equal(response.statusCode, 502);
    assert.equal(response.json().error.code, 'upstream_error');
    assert.match(response.json().error.message, /could not be reached/);
    assert.doesNotMatch(response.body, INTERNALS);
  });
});
