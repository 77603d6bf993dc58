/**
 * For a simulated exchange the reservation is never below the settled cost: the simulator
 * counts reasoning inside the output limit as every real API does, so the usage it reports
 * fits what the gateway reserved for, without the usage bounds having to cut it (no anomaly).
 * Property-style over every (model, provider) offer, its efforts, output limits and streaming.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import fc from 'fast-check';
import { bundledCatalog } from '../../routing/testing.ts';
import { type ChatTestApp, startChatApp } from './testing.ts';

const offers = bundledCatalog().models.flatMap((model) =>
  [...model.offers].map(([provider, offer]) => ({ model: model.id, provider, efforts: offer.efforts })),
);

describe('reserved >= settled for simulated exchanges', () => {
  let t: ChatTestApp;
  before(async () => {
    t = await startChatApp({ allocations: { developer: 500, cloud_a: 500, cloud_b: 500, cloud_c: 500 } });
  });
  after(() => t.close());

  test('any offer, effort, max_tokens and streaming', async () => {
    const sample = fc.constantFrom(...offers).chain((offer) =>
      fc.record({
        offer: fc.constant(offer),
        effort: fc.constantFrom(...offer.efforts),
        maxTokens: fc.oneof(fc.integer({ min: 1, max: 64 }), fc.constantFrom(2048, 8192)),
        limitField: fc.constantFrom('max_tokens', 'max_completion_tokens'),
        stream: fc.boolean(),
      }),
    );
    let answered = 0;
    await fc.assert(
      fc.asyncProperty(sample, async ({ offer, effort, maxTokens, limitField, stream }) => {
        const before = await t.database.db.selectFrom('usage').select('id').execute();
        const response = await t.app.inject({
          method: 'POST',
          url: '/v1/chat/completions',
          headers: t.headers(),
          payload: {
            model: `${offer.model}:${effort}@${offer.provider}`,
            stream,
            [limitField]: maxTokens,
            messages: [{ role: 'user', content: 'Think it over, then answer briefly.' }],
          },
        });
        // Some limits are below what an API takes with thinking on (Anthropic's 1,024-token
        // minimum budget): the upstream refuses, nothing is settled, nothing to compare.
        if (response.statusCode !== 200) return;
        answered++;
        const rows = await t.settledUsage(before.length + 1);
        const row = rows.at(-1);
        assert.ok(row, 'a usage row');
        assert.equal(row.status, 'ok', response.body);
        assert.ok(
          row.completion_tokens <= maxTokens,
          `${row.completion_tokens} completion tokens > ${maxTokens}`,
        );
        assert.ok(
          row.cost_micros <= row.reserved_micros,
          `settled ${row.cost_micros} > reserved ${row.reserved_micros}`,
        );
      }),
      { seed: 15, numRuns: 60 },
    );
    assert.ok(answered > 30, `${answered} of 60 samples answered 200`);
    const metrics = await t.app.inject({ method: 'GET', url: '/metrics' });
    assert.doesNotMatch(
      metrics.body,
      /gateway_usage_anomalies_total\{[^}]*\} [1-9]/,
      'no usage figure was cut',
    );
  });
});
