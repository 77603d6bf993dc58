/**
 * Chunks of a Chat Completions upstream, forwarded to a Chat Completions client as they came,
 * with two edits: the gateway's model name, and usage shaped as the client asked. The gateway
 * always asks upstream for usage; a client that did not ask gets no `usage` key and no usage
 * chunk, one that did gets `usage: null` on content chunks and one `choices: []` usage chunk
 * (also when a server put usage on its last content chunk, as vLLM does), with the request's
 * cost added to it.
 */
import { isJsonObject, type JsonObject } from '@app/provider-adapters';
import { withCost } from '../../pipeline/answer-cost.ts';
import type { CostNow } from '../../pipeline/stream-dialect.ts';

export function shapeNativeChunk(
  data: JsonObject,
  model: string,
  includeUsage: boolean,
  cost: CostNow,
): JsonObject[] {
  const { usage, ...rest } = data;
  const chunk = { ...rest, model };
  const choices = Array.isArray(rest.choices) ? rest.choices : [];
  const hasUsage = isJsonObject(usage);
  const out: JsonObject[] = [];
  if (choices.length > 0 || !hasUsage) out.push(includeUsage ? { ...chunk, usage: null } : chunk);
  if (hasUsage && includeUsage) out.push(withCost({ ...chunk, choices: [], usage }, 'usage', cost()));
  return out;
}

/** Characters of generated text in a chunk's choices (content and tool-call arguments). */
export function chunkChars(data: JsonObject): number {
  let chars = 0;
  for (const choice of Array.isArray(data.choices) ? data.choices : []) {
    const delta = isJsonObject(choice) && isJsonObject(choice.delta) ? choice.delta : undefined;
    if (!delta) continue;
    if (typeof delta.content === 'string') chars += delta.content.length;
    for (const call of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
      const args = isJsonObject(call) && isJsonObject(call.function) ? call.function.arguments : undefined;
      if (typeof args === 'string') chars += args.length;
    }
  }
  return chars;
}
