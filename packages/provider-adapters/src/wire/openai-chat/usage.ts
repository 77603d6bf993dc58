import { isJsonObject } from '../../json.ts';
import type { Meters } from '../../model/meters.ts';
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
  return usageFromMeters(
    promptAndCompletion(
      tokenCount(usage.prompt_tokens),
      tokenCount(prompt.cached_tokens),
      tokenCount(prompt.cache_write_tokens),
      tokenCount(usage.completion_tokens),
      tokenCount(completion.reasoning_tokens),
    ),
  );
}

/**
 * The meters of OpenAI's totals (Chat and Responses alike): the prompt includes its cached
 * reads and writes, the completion its reasoning. Each part is bounded by what is left of its
 * total, so the meters stay disjoint even when an upstream reports a part larger than its whole.
 */
export function promptAndCompletion(
  prompt: number,
  cachedRead: number,
  cacheWrite: number,
  completion: number,
  reasoning: number,
): Meters {
  const cached = Math.min(cachedRead, prompt);
  const written = Math.min(cacheWrite, prompt - cached);
  const thought = Math.min(reasoning, completion);
  const out: Record<string, number> = {};
  const inputCount = prompt - cached - written;
  if (inputCount > 0) out.input = inputCount;
  if (cached > 0) out.cached_input = cached;
  if (written > 0) out.cache_write_5m = written;
  const outputCount = completion - thought;
  if (outputCount > 0) out.output = outputCount;
  if (thought > 0) out.reasoning = thought;
  return out;
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
