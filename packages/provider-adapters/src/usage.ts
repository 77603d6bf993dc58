import type { TokenUsage } from './adapter.ts';
import { isJsonObject } from './openai-types.ts';

function count(value: unknown): number {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? Math.floor(value) : 0;
}

/** Reads an OpenAI `usage` object; undefined when there is none or it has no token counts. */
export function tokenUsageFromOpenAI(usage: unknown): TokenUsage | undefined {
  if (!isJsonObject(usage)) return undefined;
  if (typeof usage.prompt_tokens !== 'number' && typeof usage.completion_tokens !== 'number')
    return undefined;
  const promptDetails = isJsonObject(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  const completionDetails = isJsonObject(usage.completion_tokens_details)
    ? usage.completion_tokens_details
    : {};
  return {
    promptTokens: count(usage.prompt_tokens),
    completionTokens: count(usage.completion_tokens),
    cachedTokens: count(promptDetails.cached_tokens),
    reasoningTokens: count(completionDetails.reasoning_tokens),
  };
}
