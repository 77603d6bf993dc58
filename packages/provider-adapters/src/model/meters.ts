/**
 * Usage as named meters: what a call consumed, as disjoint quantities that the catalog prices
 * one by one (cost = sum of quantity x the meter's rate). A meter is a name, so a new billable
 * dimension is a catalog price plus the adapter line that fills it, never a new column or field.
 *
 * The meters are disjoint: a prompt token is counted in exactly one of `input`, `cached_input`,
 * `cache_write_5m` and `cache_write_1h`; a generated token in exactly one of `output` and
 * `reasoning`. Absent means 0. Quantities are non-negative integers.
 */
import type { Usage } from './usage.ts';

/** The meters known today; adapters may fill others (`image_input`, `audio_input`, ...). */
export const METERS = Object.freeze({
  /** Prompt tokens neither read from nor written to a prompt cache. */
  input: 'input',
  cachedInput: 'cached_input',
  cacheWrite5m: 'cache_write_5m',
  cacheWrite1h: 'cache_write_1h',
  /** Generated tokens other than those reported as reasoning. */
  output: 'output',
  reasoning: 'reasoning',
  webSearchCalls: 'web_search_calls',
} as const);

export type Meters = Readonly<Record<string, number>>;

/**
 * The meters of a usage in the adapters' common convention (see Usage). Writes of unknown
 * duration count as 5-minute writes, the default of every provider that charges them.
 */
export function metersOf(usage: Usage): Meters {
  const cached = Math.min(usage.cachedReadTokens, usage.inputTokens);
  const written = Math.min(usage.cacheWriteTokens, usage.inputTokens - cached);
  const reasoning = Math.min(usage.reasoningTokens, usage.outputTokens);
  const meters: Record<string, number> = {};
  put(meters, METERS.input, usage.inputTokens - cached - written);
  put(meters, METERS.cachedInput, cached);
  put(meters, METERS.cacheWrite5m, written);
  put(meters, METERS.output, usage.outputTokens - reasoning);
  put(meters, METERS.reasoning, reasoning);
  put(meters, METERS.webSearchCalls, usage.webSearchRequests);
  return meters;
}

function put(meters: Record<string, number>, name: string, quantity: number): void {
  if (quantity > 0) meters[name] = quantity;
}
