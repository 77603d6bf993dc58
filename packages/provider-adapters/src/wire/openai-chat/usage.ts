import { isJsonObject } from '../../json.ts';
import { tokenCount, type Usage } from '../../model/usage.ts';
import type { OpenAIUsage } from './types.ts';

/**
 * An OpenAI `usage` object in the internal convention (they agree: prompt includes cached,
 * completion includes reasoning); undefined when there is none or it has no token counts.
 */
export function usageFromOpenAI(usage: unknown): Usage | undefined {
  if (!isJsonObject(usage)) return undefined;
  if (typeof usage.prompt_tokens !== 'number' && typeof usage.completion_tokens !== 'number')
    return undefined;
  const prompt = isJsonObject(usage.prompt_tokens_details) ? usage.prompt_tokens_details : {};
  const completion = isJsonObject(usage.completion_tokens_details) ? usage.completion_tokens_details : {};
  return {
    inputTokens: tokenCount(usage.prompt_tokens),
    cachedReadTokens: tokenCount(prompt.cached_tokens),
    cacheWriteTokens: tokenCount(prompt.cache_write_tokens),
    outputTokens: tokenCount(usage.completion_tokens),
    reasoningTokens: tokenCount(completion.reasoning_tokens),
    webSearchRequests: 0,
  };
}

export function usageToOpenAI(usage: Usage): OpenAIUsage {
  return {
    prompt_tokens: usage.inputTokens,
    completion_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens,
    prompt_tokens_details: {
      cached_tokens: usage.cachedReadTokens,
      cache_write_tokens: usage.cacheWriteTokens,
    },
    completion_tokens_details: { reasoning_tokens: usage.reasoningTokens },
  };
}
