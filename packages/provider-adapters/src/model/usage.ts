/**
 * Token usage in one convention for every upstream: `inputTokens` counts the whole prompt,
 * cached reads and cache writes included (OpenAI's `prompt_tokens`); `outputTokens` counts
 * everything generated, reasoning included (OpenAI's `completion_tokens`). Adapters convert
 * from their API's convention (Anthropic and Bedrock report cache tokens beside the input).
 */
export interface Usage {
  readonly inputTokens: number;
  readonly cachedReadTokens: number;
  readonly cacheWriteTokens: number;
  readonly outputTokens: number;
  readonly reasoningTokens: number;
  readonly webSearchRequests: number;
}

export const NO_USAGE: Usage = Object.freeze({
  inputTokens: 0,
  cachedReadTokens: 0,
  cacheWriteTokens: 0,
  outputTokens: 0,
  reasoningTokens: 0,
  webSearchRequests: 0,
});

/**
 * A token count as an upstream reports it: a non-negative integer. Anything that is not a
 * non-negative number is 0; a count beyond what JavaScript represents exactly is pinned to
 * MAX_SAFE_INTEGER (not 0: the gateway must see that it is huge, bound it and report it).
 */
export function tokenCount(value: unknown): number {
  if (typeof value !== 'number' || !(value >= 0)) return 0;
  return value >= Number.MAX_SAFE_INTEGER ? Number.MAX_SAFE_INTEGER : Math.floor(value);
}
