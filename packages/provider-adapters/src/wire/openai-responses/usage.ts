import { isJsonObject, type JsonObject } from '../../json.ts';
import { tokenCount, type Usage, usageFromMeters } from '../../model/usage.ts';
import { promptAndCompletion } from '../openai-chat/usage.ts';

/**
 * A Responses `usage` object in the internal convention (they agree: input includes cached,
 * output includes reasoning); undefined when there is none or it has no token counts.
 */
export function usageFromResponses(usage: unknown): Usage | undefined {
  if (!isJsonObject(usage)) return undefined;
  if (typeof usage.input_tokens !== 'number' && typeof usage.output_tokens !== 'number') return undefined;
  const input = isJsonObject(usage.input_tokens_details) ? usage.input_tokens_details : {};
  const output = isJsonObject(usage.output_tokens_details) ? usage.output_tokens_details : {};
  return usageFromMeters(
    promptAndCompletion(
      tokenCount(usage.input_tokens),
      tokenCount(input.cached_tokens),
      tokenCount(input.cache_write_tokens),
      tokenCount(usage.output_tokens),
      tokenCount(output.reasoning_tokens),
    ),
  );
}

export function usageToResponses(usage: Usage): JsonObject {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: {
      cached_tokens: usage.cachedReadTokens,
      cache_write_tokens: usage.cacheWriteTokens,
    },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}

/**
 * A forwarded response object whose usage lacks `input_tokens_details.cache_write_tokens` (OpenAI's
 * schema requires it; upstreams that predate it leave it out) gets 0, meaning none reported; what
 * the upstream did report is kept. A response without usage is returned as it came.
 */
export function withCacheWriteTokens(response: JsonObject): JsonObject {
  const usage = response.usage;
  if (!isJsonObject(usage)) return response;
  const details = isJsonObject(usage.input_tokens_details) ? usage.input_tokens_details : {};
  if (typeof details.cache_write_tokens === 'number') return response;
  const input_tokens_details = { cached_tokens: 0, ...details, cache_write_tokens: 0 };
  return { ...response, usage: { ...usage, input_tokens_details } };
}
