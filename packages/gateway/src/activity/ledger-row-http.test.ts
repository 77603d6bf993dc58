/**
 * The activity log's columns of the usage ledger (migration 0008), filled through the real
 * request path: each attempt's row carries the request id the client got, its place among the
 * request's attempts, effort and tier, its meters, its latency and how it ended.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { storedMeters } from '../db/usage-meters.ts';
import {
  type ChatTestApp,
  scriptedDeveloper,
  startChatApp,
  type UpstreamScript,
} from '../front-doors/chat-completions/testing.ts';

const rateLimited: UpstreamScript = (response) =>
  response
    .writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' })
    .end(JSON.stringify({ error: { message: 'slow down', type: 'rate_limit_error' } }));

function post(app: ChatTestApp, body: Record<string, unknown>, requestId?: string) {
  return app.app.inject({
    method: 'POST',
    url: '/v1/chat/completions',
    headers: app.headers({
      'content-type': 'application/json',
      ...(requestId ? { 'x-request-id': requestId } : {}),
    }),
    payload: JSON.stringify({ messages: [{ role: 'user', content: 'Hello' }], ...body }),
  });
}

describe('usage rows as activity', () => {
  test('a failed-over request: one row per attempt, numbered, with the client-visible request id', async (t) => {
    const { app } = await scriptedDeveloper(t, rateLimited, { developer: 1_000, cloud_c: 100 });
    const response = await post(app, { model: 'gpt-5.4', reasoning_effort: 'low' }, 'activity-failover-1');
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.headers['x-request-id'], 'activity-failover-1');
    const rows = await app.settledUsage(2);
    assert.deepEqual(
      rows.map((row) => [
        row.request_id,
        row.attempt,
        row.provider,
        row.outcome,
        row.http_status,
        row.effort,
        Number(row.new_request),
      ]),
      [
        ['activity-failover-1', 1, 'developer', 'rate_limited', 429, 'low', 1],
        ['activity-failover-1', 2, 'cloud_c', 'ok', null, 'low', 0],
      ],
    );
    for (const row of rows) {
      assert.equal(row.tier, 'standard');
      assert.ok(typeof row.latency_ms === 'number' && row.latency_ms >= 0, `latency ${row.latency_ms}`);
      assert.equal(row.first_token_ms, null, 'not streamed');
    }
    assert.ok(Number(rows[1]?.prompt_tokens) > 0);
  });

  test('a stream records its time to first token; reasoning is its own meter', async (t) => {
    const app = await startChatApp({
      behaviour: { firstTokenDelayMs: 30, tokenDelayMs: 0 },
      allocations: { developer: 100 },
    });
    t.after(() => app.close());
    const response = await post(app, {
      model: 'gpt-5.4@developer',
      stream: true,
      reasoning_effort: 'medium',
      stream_options: { include_usage: true },
    });
    assert.equal(response.statusCode, 200, response.body);
    const [row] = await app.settledUsage(1);
    assert.ok(row);
    assert.equal(row.request_id, response.headers['x-request-id']);
    assert.equal(row.attempt, 1);
    assert.equal(row.outcome, 'ok');
    assert.ok(row.first_token_ms !== null && row.first_token_ms >= 25, `first token ${row.first_token_ms}`);
    assert.ok(row.latency_ms !== null && row.latency_ms >= row.first_token_ms);
    assert.equal(row.effort, 'medium');
    const meters = storedMeters(row.meters);
    assert.equal(meters.reasoning, 16, 'what the simulator reasons at medium effort');
    assert.equal(meters.cache_write_5m, undefined, 'an OpenAI upstream reports none');
    assert.equal(meters.output, row.completion_tokens - 16, 'the output meter is the rest of the generation');
  });
});
