/**
 * Load shedding through HTTP: past its bounds an instance answers 503 with Retry-After in the
 * OpenAI envelope at once, /readyz says it is not ready, and /healthz and /metrics still answer.
 */
import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { startChatApp } from './testing.ts';

const messages = [{ role: 'user', content: 'hello' }];

describe('load shedding', () => {
  test('requests in flight at the bound: 503 overloaded with Retry-After; not ready until one ends', async (t) => {
    const gw = await startChatApp({ shedding: { maxInFlight: 1, retryAfterSeconds: 7 } });
    t.after(() => gw.close());
    const slow = gw.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: gw.headers(),
      payload: {
        model: 'gpt-5.4@developer',
        messages,
        stream: true,
        x_simulator: { first_token_delay_ms: 400 },
      },
    });
    await sleep(100);
    const shed = await gw.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: gw.headers(),
      payload: { model: 'gpt-5.4@developer', messages },
    });
    assert.equal(shed.statusCode, 503, shed.body);
    assert.equal(shed.headers['retry-after'], '7');
    assert.equal(shed.json().error.code, 'overloaded');
    assert.equal(shed.json().error.type, 'api_error');
    assert.equal((await gw.app.inject({ url: '/readyz' })).statusCode, 503);
    assert.equal((await gw.app.inject({ url: '/healthz' })).statusCode, 200);
    assert.equal((await gw.app.inject({ url: '/metrics' })).statusCode, 200);
    assert.equal((await slow).statusCode, 200);
    assert.equal((await gw.app.inject({ url: '/readyz' })).statusCode, 200);
    const after = await gw.app.inject({ url: '/v1/models', headers: gw.headers() });
    assert.equal(after.statusCode, 200);
  });

  test('memory over its bound: every request is shed at once, health and metrics still answer', async (t) => {
    const gw = await startChatApp({ shedding: { maxHeapUsedBytes: 1 } });
    t.after(() => gw.close());
    await sleep(250); // the sampler runs every 100 ms
    const shed = await gw.app.inject({ url: '/v1/models', headers: gw.headers() });
    assert.equal(shed.statusCode, 503, shed.body);
    assert.equal(shed.json().error.code, 'overloaded');
    assert.match(shed.json().error.message, /memory/);
    assert.equal(shed.headers['retry-after'], '5');
    assert.equal((await gw.app.inject({ url: '/readyz' })).statusCode, 503);
    assert.equal((await gw.app.inject({ url: '/healthz' })).statusCode, 200);
    assert.equal((await gw.app.inject({ url: '/metrics' })).statusCode, 200);
  });
});
