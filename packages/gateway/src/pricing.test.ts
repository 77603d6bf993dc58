import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Price } from './contracts.ts';
import { costMicros, dearestPromptMeter, ratesFor, reservationMicros } from './pricing.ts';

/** Gemini 2.5 Pro's standard price: dearer above 200,000 prompt tokens. */
const TIERED: Price = {
  rates: { input: 1.25, cached_input: 0.125, output: 10, web_search_calls: 0 },
  byPromptSize: [
    {
      abovePromptTokens: 200_000,
      rates: { input: 2.5, cached_input: 0.25, output: 15, web_search_calls: 0 },
    },
  ],
};

/** Claude Sonnet's price: every cache meter and web search. */
const CLAUDE: Price = {
  rates: {
    input: 3,
    cached_input: 0.3,
    cache_write_5m: 3.75,
    cache_write_1h: 6,
    output: 15,
    web_search_calls: 10,
  },
  byPromptSize: [],
};

describe('costMicros: meters x rates, rounded up once', () => {
  test('every meter at its own rate: tokens per million, web searches per thousand', () => {
    const each = [
      [{ input: 1_000 }, 3_000],
      [{ cached_input: 1_000 }, 300],
      [{ cache_write_5m: 1_000 }, 3_750],
      [{ cache_write_1h: 1_000 }, 6_000],
      [{ output: 1_000 }, 15_000],
      [{ reasoning: 1_000 }, 15_000],
      [{ web_search_calls: 3 }, 30_000],
    ] as const;
    for (const [meters, micros] of each)
      assert.equal(costMicros(meters, CLAUDE), micros, Object.keys(meters)[0]);
    const all = Object.assign({}, ...each.map(([meters]) => meters)) as Record<string, number>;
    assert.equal(
      costMicros(all, CLAUDE),
      each.reduce((sum, [, micros]) => sum + micros, 0),
    );
  });

  test('a one-hour write costs twice the input, a five-minute one 1.25 times', () => {
    assert.equal(costMicros({ cache_write_1h: 10_000 }, CLAUDE), 2 * costMicros({ input: 10_000 }, CLAUDE));
    assert.equal(
      costMicros({ cache_write_5m: 10_000 }, CLAUDE),
      1.25 * costMicros({ input: 10_000 }, CLAUDE),
    );
  });

  test('fallbacks: reasoning as output, a five-minute write as input when unpriced', () => {
    const plain: Price = { rates: { input: 2, cached_input: 0.2, output: 8 }, byPromptSize: [] };
    assert.equal(costMicros({ reasoning: 100 }, plain), 800);
    assert.equal(costMicros({ cache_write_5m: 100 }, plain), 200);
  });

  test('a meter the registry does not know, or without rate nor fallback, costs nothing', () => {
    const plain: Price = { rates: { input: 2, output: 8 }, byPromptSize: [] };
    assert.equal(costMicros({ input: 100, hologram_input: 1_000_000 }, plain), 200);
    assert.equal(costMicros({ input: 100, cache_write_1h: 1_000_000 }, plain), 200);
    assert.equal(costMicros({ constructor: 5 }, plain), 0);
  });

  test('prompt-size tier: exactly 200,000 prompt tokens pay the base rates, 200,001 the tier', () => {
    assert.equal(costMicros({ input: 200_000, output: 1_000 }, TIERED), 200_000 * 1.25 + 10_000);
    assert.equal(costMicros({ input: 200_001, output: 1_000 }, TIERED), Math.ceil(200_001 * 2.5) + 15_000);
  });

  test('the prompt size counts cached and written tokens too; the whole attempt takes the tier', () => {
    const used = { input: 150_000, cached_input: 50_001, output: 10 };
    assert.equal(costMicros(used, TIERED), Math.ceil(150_000 * 2.5 + 50_001 * 0.25 + 10 * 15));
    assert.equal(ratesFor(TIERED, 200_000), TIERED.rates);
  });

  test('rounded up once per attempt, float noise not rounded up', () => {
    const price: Price = { rates: { input: 0.1, cached_input: 0.2, output: 0.3 }, byPromptSize: [] };
    assert.equal(costMicros({ input: 1, cached_input: 1 }, price), 1);
    assert.equal(costMicros({ input: 1, cached_input: 1, output: 1 }, price), 1);
    assert.equal(costMicros({ input: 5, cached_input: 5 }, price), 2);
    // 100 x 0.07 is 7.000000000000001 in floating point: 7 micros, not 8.
    assert.equal(costMicros({ input: 100 }, { rates: { input: 0.07 }, byPromptSize: [] }), 7);
    assert.equal(costMicros({}, price), 0);
  });

  test('the reservation: whole prompt at its dearest rate, all output, all searches, tier of the prompt size', () => {
    // Claude's dearest prompt token is a one-hour cache write (2x input).
    assert.equal(reservationMicros(1_000, 100, CLAUDE, 2), 6_000 + 1_500 + 20_000);
    assert.equal(reservationMicros(200_000, 100, TIERED), 250_000 + 1_000);
    assert.equal(reservationMicros(300_000, 100, TIERED), 750_000 + 1_500);
  });

  test('no settlement of a prompt exceeds its reservation, whatever the prompt meters it is spread over', () => {
    const prompt = 10_000;
    for (const name of ['input', 'cached_input', 'cache_write_5m', 'cache_write_1h'])
      for (const share of [0, 0.5, 1]) {
        const used = {
          input: Math.round(prompt * (1 - share)),
          [name]: Math.round(prompt * share),
          output: 100,
        };
        assert.ok(costMicros(used, CLAUDE) <= reservationMicros(prompt, 100, CLAUDE), `${name} ${share}`);
      }
  });

  test('dearestPromptMeter: input unless a prompt meter is dearer; output-class meters never', () => {
    assert.equal(dearestPromptMeter(CLAUDE.rates), 'cache_write_1h');
    assert.equal(dearestPromptMeter(TIERED.rates), 'input');
    assert.equal(dearestPromptMeter({ input: 1, output: 50, web_search_calls: 30 }), 'input');
  });
});
