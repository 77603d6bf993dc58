/**
 * The cost on every answer, through HTTP for every door, JSON and stream, translated and passed
 * through: `usage.cost` (Gemini: `usageMetadata.cost`) in US dollars equals the ledger row of
 * the request and the catalog price times the usage it records; X-Gateway-Cost says the same on
 * JSON answers. A failover that charged two attempts answers with the sum of both rows.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  type ChatTestApp,
  scriptedDeveloper,
  startChatApp,
  type UsageRow,
} from './chat-completions/testing.ts';
import { DOORS, type Door, parseSse } from './conformance/testing.ts';
import { storedMeters } from '../db/usage-meters.ts';

type Json = Record<string, unknown>;
type Prices = Record<
  string,
  { input_per_mtok: number; cached_input_per_mtok: number; output_per_mtok: number }
>;
interface ModelEntry {
  id: string;
  providers: { id: string; prices: Prices }[];
}

const chat = DOORS.find((door) => door.name === 'chat completions') as Door;
let t: ChatTestApp;
let models: ModelEntry[];

before(async () => {
  t = await startChatApp({ behaviour: { firstTokenDelayMs: 0, tokenDelayMs: 0, replyTokens: 6 } });
  const listed = await t.app.inject({ method: 'GET', url: '/v1/models', headers: t.headers() });
  models = (JSON.parse(listed.body) as { data: ModelEntry[] }).data;
});
after(() => t.close());

/** The standard price of `model` (exact version) on `provider`, from GET /v1/models. */
function priceOf(model: string, provider: string) {
  const price = models.find((entry) => entry.id === model)?.providers.find((p) => p.id === provider)
    ?.prices.standard;
  assert.ok(price, `no standard price for ${model} on ${provider}`);
  return price;
}

/** Micro-dollars of a ledger row's tokens at the catalog price, rounded up as the ledger does. */
function expectedMicros(row: UsageRow, provider: string): number {
  const price = priceOf(row.model ?? '', provider);
  const cached = storedMeters(row.meters).cached_input ?? 0;
  const uncached = row.prompt_tokens - cached;
  const raw =
    uncached * price.input_per_mtok +
    cached * price.cached_input_per_mtok +
    row.completion_tokens * price.output_per_mtok;
  return Math.ceil(raw - 1e-6);
}

/** The new ledger rows of the request run by `ask`, once settled. */
async function rowsOf(ask: () => Promise<void>): Promise<UsageRow[]> {
  const before = (await t.settledUsage(0)).length;
  await ask();
  return (await t.settledUsage(before + 1)).slice(before);
}

/** The cost in an answer object of `door` (Gemini's under usageMetadata). */
function costIn(door: Door, answer: Json | undefined): unknown {
  const usage = (door.vendor === 'gemini' ? answer?.usageMetadata : answer?.usage) as Json | undefined;
  return usage?.cost;
}

/** The costs a stream of `door` carries, wherever its API puts the final usage. */
function streamCosts(door: Door, body: string): unknown[] {
  return parseSse(body)
    .map((event) => (door.name === 'responses' ? (event.data.response as Json | undefined) : event.data))
    .map((data) => costIn(door, data))
    .filter((cost) => cost !== undefined);
}

const CASES = [
  { door: 'chat completions', model: 'gpt-5.4-mini@developer', provider: 'developer', how: 'passthrough' },
  { door: 'chat completions', model: 'claude-sonnet@cloud_a', provider: 'cloud_a', how: 'translated' },
  { door: 'responses', model: 'gpt-5.4-mini@developer', provider: 'developer', how: 'passthrough' },
  { door: 'responses', model: 'gemini-flash@cloud_b', provider: 'cloud_b', how: 'translated' },
  { door: 'messages', model: 'claude-sonnet@developer', provider: 'developer', how: 'passthrough' },
  { door: 'messages', model: 'gpt-5.4-mini@developer', provider: 'developer', how: 'translated' },
  {
    door: 'gemini generateContent',
    model: 'gemini-flash@developer',
    provider: 'developer',
    how: 'passthrough',
  },
  { door: 'gemini generateContent', model: 'claude-sonnet@cloud_a', provider: 'cloud_a', how: 'translated' },
] as const;

for (const c of CASES) {
  const door = DOORS.find((candidate) => candidate.name === c.door);
  assert.ok(door);
  describe(`${c.door}, ${c.model} (${c.how})`, () => {
    test('JSON: usage.cost and X-Gateway-Cost are the ledger row, at the catalog price', async () => {
      let answer: Json | undefined;
      let header: unknown;
      const [row] = await rowsOf(async () => {
        const response = await t.app.inject({
          method: 'POST',
          url: door.path(c.model, false),
          headers: t.headers(),
          payload: door.body(c.model, 'text', false),
        });
        assert.equal(response.statusCode, 200, response.body);
        answer = JSON.parse(response.body) as Json;
        header = response.headers['x-gateway-cost'];
      });
      assert.ok(row && row.status === 'ok');
      assert.ok(row.cost_micros > 0);
      assert.equal(row.cost_micros, expectedMicros(row, c.provider));
      assert.equal(costIn(door, answer), row.cost_micros / 1e6);
      assert.equal(header, String(row.cost_micros / 1e6));
    });

    test('stream: the final usage carries the cost of the ledger row', async () => {
      let body = '';
      let header: unknown;
      const [row] = await rowsOf(async () => {
        const response = await t.app.inject({
          method: 'POST',
          url: door.path(c.model, true),
          headers: t.headers(),
          payload: door.body(c.model, 'text', true),
        });
        assert.equal(response.statusCode, 200, response.body);
        body = response.body;
        header = response.headers['x-gateway-cost'];
      });
      assert.ok(row && row.status === 'ok');
      assert.equal(row.cost_micros, expectedMicros(row, c.provider));
      assert.deepEqual(streamCosts(door, body), [row.cost_micros / 1e6], body);
      assert.equal(header, undefined, 'the headers of a stream go before its cost is known');
    });
  });
}

test('failover after a charged attempt: the stream costs the sum of the rows of the request', async (ctx) => {
  // developer's OpenAI endpoint reports usage (it billed the prompt), then fails before any
  // content: the attempt is charged, and the request goes on to another provider.
  const { app } = await scriptedDeveloper(
    ctx,
    (response) => {
      response.writeHead(200, { 'content-type': 'text/event-stream' });
      response.end(
        'data: {"id":"x","object":"chat.completion.chunk","created":1,"model":"m","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":3,"total_tokens":13}}\n\n' +
          'data: {"error":{"message":"overloaded","type":"server_error"}}\n\n',
      );
    },
    { developer: 100, cloud_c: 10 },
  );
  const before = (await app.settledUsage(0)).length;
  const response = await app.app.inject({
    method: 'POST',
    url: '/v1/chat/completions',
    headers: app.headers(),
    payload: {
      model: 'gpt-5.4-mini',
      messages: [{ role: 'user', content: 'hi' }],
      stream: true,
      stream_options: { include_usage: true },
    },
  });
  assert.equal(response.statusCode, 200, response.body);
  const rows = (await app.settledUsage(before + 2)).slice(before);
  const charged = rows.filter((row) => row.cost_micros > 0);
  assert.equal(charged.length, 2, JSON.stringify(rows));
  const total = charged.reduce((sum, row) => sum + row.cost_micros, 0);
  assert.deepEqual(streamCosts(chat, response.body), [total / 1e6], response.body);
});
