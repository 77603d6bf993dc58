/**
 * `n` (several completions per request) is reserved for, capped by GATEWAY_MAX_CHOICES, and
 * refused where the upstream API has no such parameter (issue: one request with `n: 50` was
 * charged 44x its reservation, so the overspend bound of one request did not hold).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ChatTestApp, startChatApp } from './testing.ts';

const messages = [{ role: 'user', content: 'hello' }];

describe('n, several completions per request', () => {
  let t: ChatTestApp;
  before(async () => {
    t = await startChatApp({ upstream: { maxChoices: 8 } });
  });
  after(() => t.close());

  async function post(payload: Record<string, unknown>) {
    return t.app.inject({ method: 'POST', url: '/v1/chat/completions', headers: t.headers(), payload });
  }

  test('each completion is reserved for: n=4 reserves four times the output of n=1', async () => {
    const one = await post({ model: 'gpt-5.4@developer', messages, max_tokens: 100 });
    const four = await post({ model: 'gpt-5.4@developer', messages, max_tokens: 100, n: 4 });
    assert.equal(one.statusCode, 200, one.body);
    assert.equal(four.statusCode, 200, four.body);
    const [first, second] = await t.settledUsage(2);
    // gpt-5.4 output is $15 per million tokens: three more completions of 100 tokens = 4,500 micros.
    assert.equal((second?.reserved_micros ?? 0) - (first?.reserved_micros ?? 0), 4_500);
    assert.equal(t.lastUpstreamBody().n, 4, 'an upstream of the same API gets n as sent');
  });

  test('more than GATEWAY_MAX_CHOICES is a 400 naming the parameter; nothing is reserved or sent', async () => {
    const before = (await t.settledUsage(0)).length;
    const sent = t.sim.received.length;
    const response = await post({ model: 'gpt-5.4@developer', messages, n: 50 });
    assert.equal(response.statusCode, 400, response.body);
    assert.equal(response.json().error.code, 'invalid_request');
    assert.equal(response.json().error.param, 'n');
    assert.match(response.json().error.message, /at most 8/);
    assert.equal((await t.settledUsage(0)).length, before);
    assert.equal(t.sim.received.length, sent);
  });

  test('an upstream API without n refuses n > 1 with a 400 and returns the budget', async () => {
    const sent = t.sim.received.length;
    const response = await post({ model: 'claude-sonnet@developer', messages, n: 2 });
    assert.equal(response.statusCode, 400, response.body);
    assert.match(response.json().error.message, /several completions/);
    assert.equal(t.sim.received.length, sent);
    const rows = await t.settledUsage(3);
    assert.deepEqual([rows.at(-1)?.status, rows.at(-1)?.cost_micros], ['error', 0]);
  });
});

describe('web searches, billed per call', () => {
  test('capped by GATEWAY_MAX_WEB_SEARCHES (sent as max_uses), reserved for, and charged as made', async (t) => {
    const gw = await startChatApp({ upstream: { maxWebSearches: 3 } });
    t.after(() => gw.close());
    const post = (payload: Record<string, unknown>) =>
      gw.app.inject({ method: 'POST', url: '/v1/chat/completions', headers: gw.headers(), payload });
    const plain = await post({ model: 'claude-sonnet@developer', messages, max_tokens: 100 });
    const searched = await post({
      model: 'claude-sonnet@developer',
      messages,
      max_tokens: 100,
      web_search_options: {},
    });
    assert.equal(plain.statusCode, 200, plain.body);
    assert.equal(searched.statusCode, 200, searched.body);
    const tools = gw.lastUpstreamBody().tools as Array<Record<string, unknown>>;
    assert.deepEqual(
      tools.find((tool) => tool.name === 'web_search'),
      { type: 'web_search_20250305', name: 'web_search', max_uses: 3 },
    );
    const [first, second] = await gw.settledUsage(2);
    // Anthropic web search is $10 per 1,000 searches: 10,000 micro-dollars each, three reserved.
    assert.equal((second?.reserved_micros ?? 0) - (first?.reserved_micros ?? 0), 30_000);
    assert.ok((second?.cost_micros ?? 0) - (first?.cost_micros ?? 0) >= 10_000, 'the search made is charged');
  });
});
