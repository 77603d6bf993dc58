import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ADAPTER_TRAITS } from '../endpoints.ts';
import { METER_REGISTRY, meters, metersOf } from './meters.ts';
import { NO_USAGE, usageFromMeters } from './usage.ts';

describe('meters', () => {
  test('the totals derive from the meters: prompt and generated classes summed, counts apart', () => {
    const usage = usageFromMeters({
      input: 10,
      cached_input: 20,
      cache_write_5m: 3,
      cache_write_1h: 4,
      output: 5,
      reasoning: 6,
      web_search_calls: 2,
    });
    assert.deepEqual(
      { ...usage, meters: undefined },
      {
        meters: undefined,
        inputTokens: 37,
        cachedReadTokens: 20,
        cacheWriteTokens: 7,
        outputTokens: 11,
        reasoningTokens: 6,
        webSearchRequests: 2,
      },
    );
    assert.equal(metersOf(usage), usage.meters);
  });

  test('a meter the registry does not know adds to no total', () => {
    const usage = usageFromMeters({ input: 10, hologram_input: 99 });
    assert.equal(usage.inputTokens, 10);
    assert.equal(usage.outputTokens, 0);
    assert.equal(usage.meters.hologram_input, 99);
  });

  test('no usage has no meters', () => {
    assert.deepEqual(NO_USAGE.meters, {});
    assert.equal(NO_USAGE.inputTokens, 0);
  });

  test('meters() leaves zeros out and keeps the order given', () => {
    assert.deepEqual(Object.keys(meters({ input: 1, cached_input: 0, output: 2, reasoning: 0 })), [
      'input',
      'output',
    ]);
  });

  test('every meter an adapter declares is in the registry', () => {
    for (const [adapter, traits] of Object.entries(ADAPTER_TRAITS))
      for (const name of traits.meters) assert.ok(Object.hasOwn(METER_REGISTRY, name), `${adapter}: ${name}`);
  });
});
