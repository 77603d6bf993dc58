import assert from 'node:assert/strict';
import { test } from 'node:test';
import { usageFromMeters } from '@app/provider-adapters';
import { boundUsage } from './usage-bounds.ts';

const LIMITS = { inputTokens: 1_000, outputTokens: 100, webSearches: 1 };

test('usage within the bounds is returned as it is', () => {
  const usage = usageFromMeters({ input: 500, cached_input: 500, output: 60, reasoning: 40 });
  assert.deepEqual(boundUsage(usage, LIMITS), { usage, exceeded: [] });
});

test('beyond the bounds: cache meters kept inside the prompt, reasoning inside the output, plain meters cut', () => {
  const usage = usageFromMeters({
    input: 900,
    cached_input: 600,
    cache_write_1h: 300,
    output: 500,
    reasoning: 80,
    web_search_calls: 4,
  });
  const { usage: bounded, exceeded } = boundUsage(usage, LIMITS);
  assert.deepEqual(bounded.meters, {
    input: 100,
    cached_input: 600,
    cache_write_1h: 300,
    output: 20,
    reasoning: 80,
    web_search_calls: 1,
  });
  assert.deepEqual(exceeded, ['input', 'output', 'web_search_calls']);
  assert.equal(bounded.inputTokens, 1_000);
  assert.equal(bounded.outputTokens, 100);
});

test('a cache figure larger than the whole bound takes it all; the plain meter is dropped', () => {
  const { usage, exceeded } = boundUsage(usageFromMeters({ input: 10, cached_input: 5_000 }), LIMITS);
  assert.deepEqual(usage.meters, { cached_input: 1_000 });
  assert.deepEqual(exceeded, ['input', 'cached_input']);
});
