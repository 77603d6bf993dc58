import { ADDED_GENERATED_METERS, ADDED_PROMPT_METERS, type Meters } from './meters.ts';

/**
 * What a call consumed. `meters` is the billing truth (meters.ts): the adapters fill it and the
 * gateway prices it. The totals beside it are derived from the meters by `usageFromMeters`, once per
 * usage, in one convention for every API: `inputTokens` counts the whole prompt (every
 * `prompt` meter: cached reads and cache writes included, OpenAI's `prompt_tokens`);
 * `outputTokens` everything generated (every `generated` meter, reasoning included, OpenAI's
 * `completion_tokens`). The front doors encode answers from the totals in their API's convention.
 */
export interface Usage {
  readonly meters: Meters;
  readonly inputTokens: number;
  readonly cachedReadTokens: number;
  /** Cache writes of every duration. */
  readonly cacheWriteTokens: number;
  readonly outputTokens: number;
  readonly reasoningTokens: number;
  readonly webSearchRequests: number;
}

/**
 * The one function from meters to the totals. A meter the registry does not know adds to no
 * total (its class, and so its unit, is unknown); the gateway refuses an offer whose adapter
 * fills a meter its catalog price cannot price, so such a meter never reaches a charge.
 */
export function usageFromMeters(meters: Meters): Usage {
  const cached = meters.cached_input ?? 0;
  const written = (meters.cache_write_5m ?? 0) + (meters.cache_write_1h ?? 0);
  const reasoning = meters.reasoning ?? 0;
  let prompt = (meters.input ?? 0) + cached + written;
  let generated = (meters.output ?? 0) + reasoning;
  if (ADDED_PROMPT_METERS.length > 0) prompt += sum(meters, ADDED_PROMPT_METERS);
  if (ADDED_GENERATED_METERS.length > 0) generated += sum(meters, ADDED_GENERATED_METERS);
  return {
    meters,
    inputTokens: prompt,
    cachedReadTokens: cached,
    cacheWriteTokens: written,
    outputTokens: generated,
    reasoningTokens: reasoning,
    webSearchRequests: meters.web_search_calls ?? 0,
  };
}

function sum(meters: Meters, names: readonly string[]): number {
  let total = 0;
  for (const name of names) total += meters[name] ?? 0;
  return total;
}

export const NO_USAGE: Usage = Object.freeze(usageFromMeters(Object.freeze({})));

/**
 * A token count as an upstream reports it: a non-negative integer. Anything that is not a
 * non-negative number is 0; a count beyond what JavaScript represents exactly is pinned to
 * MAX_SAFE_INTEGER (not 0: the gateway must see that it is huge, bound it and report it).
 */
export function tokenCount(value: unknown): number {
  if (typeof value !== 'number' || !(value >= 0)) return 0;
  return value >= Number.MAX_SAFE_INTEGER ? Number.MAX_SAFE_INTEGER : Math.floor(value);
}
