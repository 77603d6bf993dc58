/**
 * The ledger charges meters at the catalog's rates, through HTTP against the simulator: an
 * Anthropic request whose prompt is written to the cache for an hour pays the one-hour write
 * rate (on Anthropic, Vertex and Bedrock), and a prompt over 200,000 tokens on Gemini 2.5 Pro pays the long-context rates. The
 * expected figures are computed from the rates GET /v1/models lists and the usage the answer
 * reports, so the test proves the charge follows the catalog, not a figure copied from the code.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type ChatTestApp, startChatApp, type UsageRow } from './chat-completions/testing.ts';

type Json = Record<string, unknown>;
interface ListedPrice {
  meters: Record<string, number>;
  by_prompt_size?: { above_prompt_tokens: number; meters: Record<string, number> }[];
}
interface ListedModel {
  id: string;
  providers: { id: string; prices: { standard: ListedPrice } }[];
}

let t: ChatTestApp;
let models: ListedModel[];

before(async () => {
  t = await startChatApp({ behaviour: { firstTokenDelayMs: 0, tokenDelayMs: 0, replyTokens: 6 } });
  const listed = await t.app.inject({ method: 'GET', url: '/v1/models', headers: t.headers() });
  models = (JSON.parse(listed.body) as { data: ListedModel[] }).data;
});
after(() => t.close());

function standardPrice(model: string, provider: string): ListedPrice {
  const price = models.find((entry) => entry.id === model)?.providers.find((p) => p.id === provider)
    ?.prices.standard;
  assert.ok(price, `no standard price for ${model} on ${provider}`);
  return price;
}

/** Meters (tokens) x rates ($ per million = micros per token), rounded up once as the ledger does. */
function micros(quantities: Record<string, number>, rates: Record<string, number>): number {
  let raw = 0;
  for (const [meter, quantity] of Object.entries(quantities)) {
    const rate = rates[meter];
    assert.ok(rate !== undefined, `no rate for ${meter}`);
    raw += quantity * rate;
  }
  return Math.ceil(raw - 1e-6);
}

async function charged(ask: () => Promise<Json>): Promise<{ row: UsageRow; answer: Json }> {
  const before = (await t.settledUsage(0)).length;
  const answer = await ask();
  const [row] = (await t.settledUsage(before + 1)).slice(before);
  assert.ok(row && row.status === 'ok', JSON.stringify(row));
  return { row, answer };
}

describe('the ledger charges meters at the catalog rates', () => {
  for (const [provider, how] of [
    ['developer', 'Anthropic, passed through'],
    ['cloud_b', 'Claude on Vertex, passed through'],
    ['cloud_a', 'Bedrock, translated'],
  ] as const)
    test(`${how}: one-hour cache writes at their own rate (twice the input), five-minute ones at theirs`, async () => {
      const handbook = 'The handbook says many things about many topics. '.repeat(400);
      const { row, answer } = await charged(async () => {
        const response = await t.app.inject({
          method: 'POST',
          url: '/v1/messages',
          headers: t.headers({ 'anthropic-version': '2023-06-01' }),
          payload: {
            model: `claude-sonnet-4-6@${provider}`,
            max_tokens: 64,
            system: [{ type: 'text', text: handbook, cache_control: { type: 'ephemeral', ttl: '1h' } }],
            messages: [
              {
                role: 'user',
                content: [
                  { type: 'text', text: handbook, cache_control: { type: 'ephemeral' } },
                  { type: 'text', text: 'What does it say?' },
                ],
              },
            ],
          },
        });
        assert.equal(response.statusCode, 200, response.body);
        return JSON.parse(response.body) as Json;
      });
      const usage = answer.usage as {
        input_tokens: number;
        output_tokens: number;
        cache_creation: { ephemeral_5m_input_tokens: number; ephemeral_1h_input_tokens: number };
      };
      const oneHour = usage.cache_creation.ephemeral_1h_input_tokens;
      const fiveMinutes = usage.cache_creation.ephemeral_5m_input_tokens;
      assert.ok(oneHour > 1000 && fiveMinutes > 1000, JSON.stringify(usage));
      const { meters: rates } = standardPrice('claude-sonnet-4-6', provider);
      assert.equal(rates.cache_write_1h, 2 * (rates.input ?? NaN));
      const expected = micros(
        {
          input: usage.input_tokens,
          cache_write_5m: fiveMinutes,
          cache_write_1h: oneHour,
          output: usage.output_tokens,
        },
        rates,
      );
      assert.equal(row.cost_micros, expected);
      assert.equal(row.prompt_tokens, usage.input_tokens + fiveMinutes + oneHour);
      // Charging the one-hour writes as five-minute ones would have been less.
      const asFiveMinutes = micros(
        { input: usage.input_tokens, cache_write_5m: fiveMinutes + oneHour, output: usage.output_tokens },
        rates,
      );
      assert.ok(row.cost_micros > asFiveMinutes);
    });

  test('Gemini 2.5 Pro: a prompt over 200,000 tokens pays the long-context rates on every meter', async () => {
    const long = 'word '.repeat(185_000);
    const { row, answer } = await charged(async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: t.headers(),
        payload: { model: 'gemini-2.5-pro@developer', messages: [{ role: 'user', content: long }] },
      });
      assert.equal(response.statusCode, 200, response.body.slice(0, 500));
      return JSON.parse(response.body) as Json;
    });
    const usage = answer.usage as { prompt_tokens: number; completion_tokens: number };
    assert.ok(usage.prompt_tokens > 200_000, JSON.stringify(usage));
    const price = standardPrice('gemini-2.5-pro', 'developer');
    const tier = price.by_prompt_size?.find((entry) => entry.above_prompt_tokens === 200_000);
    assert.ok(tier, 'gemini-2.5-pro has a tier above 200,000 prompt tokens');
    // Reasoning tokens are inside completion_tokens and priced as output.
    const expected = micros({ input: usage.prompt_tokens, output: usage.completion_tokens }, tier.meters);
    assert.equal(row.cost_micros, expected);
    assert.ok(
      row.cost_micros > micros({ input: usage.prompt_tokens, output: usage.completion_tokens }, price.meters),
    );
  });
});
