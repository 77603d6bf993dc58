import { meterClass, METERS, type Meters } from './meters.ts';

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
  let prompt = 0;
  let generated = 0;
  for (const name in meters) {
    const quantity = meters[name] ?? 0;
    const kind = meterClass(name);
    if (kind === 'prompt') prompt += quantity;
    else if (kind === 'generated') generated += quantity;
  }
  return {
    meters,
    inputTokens: prompt,
    cachedReadTokens: meters[METERS.cachedInput] ?? 0,
    cacheWriteTokens: (meters[METERS.cacheWrite5m] ?? 0) + (meters[METERS.cacheWrite1h] ?? 0),
    outputTokens: generated,
    reasoningTokens: meters[METERS.reasoning] ?? 0,
    webSearchRequests: meters[METERS.webSearchCalls] ?? 0,
  };
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
