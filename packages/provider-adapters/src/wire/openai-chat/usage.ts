import { isJsonObject } from '../../json.ts';
import { meters, splitTotal } from '../../model/meters.ts';
import { tokenCount, type Usage, usageFromMeters } from '../../model/usage.ts';
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
  const [cached = 0, written = 0, input = 0] = splitTotal(
    tokenCount(usage.prompt_tokens),
    tokenCount(prompt.cached_tokens),
    tokenCount(prompt.cache_write_tokens),
  );
  const [reasoning = 0, output = 0] = splitTotal(
    tokenCount(usage.completion_tokens),
    tokenCount(completion.reasoning_tokens),
  );
  return usageFromMeters(meters({ input, cached_input: cached, cache_write_5m: written, output, reasoning }));
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
