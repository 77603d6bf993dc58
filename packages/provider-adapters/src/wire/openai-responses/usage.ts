import { isJsonObject, type JsonObject } from '../../json.ts';
import { tokenCount, type Usage } from '../../model/usage.ts';

/**
 * A Responses `usage` object in the internal convention (they agree: input includes cached,
 * output includes reasoning); undefined when there is none or it has no token counts.
 */
export function usageFromResponses(usage: unknown): Usage | undefined {
  if (!isJsonObject(usage)) return undefined;
  if (typeof usage.input_tokens !== 'number' && typeof usage.output_tokens !== 'number') return undefined;
  const input = isJsonObject(usage.input_tokens_details) ? usage.input_tokens_details : {};
  const output = isJsonObject(usage.output_tokens_details) ? usage.output_tokens_details : {};
  return {
    inputTokens: tokenCount(usage.input_tokens),
    cachedReadTokens: tokenCount(input.cached_tokens),
    cacheWriteTokens: 0,
    outputTokens: tokenCount(usage.output_tokens),
    reasoningTokens: tokenCount(output.reasoning_tokens),
    webSearchRequests: 0,
  };
}

export function usageToResponses(usage: Usage): JsonObject {
  return {
    input_tokens: usage.inputTokens,
    input_tokens_details: { cached_tokens: usage.cachedReadTokens },
    output_tokens: usage.outputTokens,
    output_tokens_details: { reasoning_tokens: usage.reasoningTokens },
    total_tokens: usage.inputTokens + usage.outputTokens,
  };
}
