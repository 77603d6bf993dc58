/** A Messages response (and its pieces, which the stream decoder shares) in the internal model. */
import { AdapterParseError } from '../../adapter.ts';
import { isJsonObject, type JsonObject, parseJson, servedModel } from '../../json.ts';
import type { Citation, Part } from '../../model/content.ts';
import type { FinishReason, ModelResponse, ServedTier } from '../../model/response.ts';
import { tokenCount, type Usage, usageFromMeters } from '../../model/usage.ts';
import { putSideBySidePrompt } from '../../model/meters.ts';

const FINISH: Readonly<Record<string, FinishReason>> = {
  end_turn: 'stop',
  stop_sequence: 'stop',
  max_tokens: 'length',
  model_context_window_exceeded: 'length',
  tool_use: 'tool_calls',
  refusal: 'content_filter',
  pause_turn: 'pause',
};

/** An unknown or missing stop reason reads as a plain stop: the output itself is complete. */
export function finishReason(stopReason: unknown): FinishReason {
  return (typeof stopReason === 'string' ? FINISH[stopReason] : undefined) ?? 'stop';
}

function object(value: unknown): JsonObject {
  return isJsonObject(value) ? value : {};
}

/**
 * Anthropic reports the uncached input beside the cache reads and writes, which are disjoint
 * meters as they are. `cache_creation` splits the writes by duration; writes it does not place
 * (an older API version sends no split) are 5-minute writes, the default duration. Thinking is
 * inside output_tokens.
 */
export function usageFrom(raw: JsonObject): Usage {
  const creation = object(raw.cache_creation);
  const meters: Record<string, number> = {};
  putSideBySidePrompt(meters, {
    input: tokenCount(raw.input_tokens),
    cachedRead: tokenCount(raw.cache_read_input_tokens),
    written: tokenCount(raw.cache_creation_input_tokens),
    oneHour: tokenCount(creation.ephemeral_1h_input_tokens),
    fiveMinutes: tokenCount(creation.ephemeral_5m_input_tokens),
  });
  const generated = tokenCount(raw.output_tokens);
  const thinking = Math.min(tokenCount(object(raw.output_tokens_details).thinking_tokens), generated);
  const outputCount = generated - thinking;
  if (outputCount > 0) meters.output = outputCount;
  if (thinking > 0) meters.reasoning = thinking;
  const searchesCount = tokenCount(object(raw.server_tool_use).web_search_requests);
  if (searchesCount > 0) meters.web_search_calls = searchesCount;
  return usageFromMeters(meters);
}

export function servedTier(rawUsage: unknown): ServedTier | undefined {
  const tier = object(rawUsage).service_tier;
  return tier === 'priority' ? 'priority' : tier === 'standard' ? 'standard' : undefined;
}

/** Web search citations; document locations have no URL and no place in the internal model. */
export function citationFrom(raw: unknown): Citation | undefined {
  if (!isJsonObject(raw) || raw.type !== 'web_search_result_location' || typeof raw.url !== 'string')
    return undefined;
  return {
    type: 'url',
    url: raw.url,
    ...(typeof raw.title === 'string' ? { title: raw.title } : {}),
    ...(typeof raw.cited_text === 'string' ? { citedText: raw.cited_text } : {}),
  };
}

function textPart(block: JsonObject): Part {
  const text = typeof block.text === 'string' ? block.text : '';
  const citations = Array.isArray(block.citations)
    ? block.citations.flatMap((c) => citationFrom(c) ?? [])
    : [];
  return citations.length > 0 ? { type: 'text', text, citations } : { type: 'text', text };
}

/** Tool inputs are objects on the wire; the internal model keeps the arguments as JSON text. */
export function argumentsText(input: unknown): string {
  return JSON.stringify(isJsonObject(input) ? input : {});
}

/** Server tool results: web search, and the other `*_tool_result` blocks of later server tools. */
export function isServerToolResult(type: unknown): boolean {
  return typeof type === 'string' && type.endsWith('_tool_result') && type !== 'tool_result';
}

export function blockPart(block: JsonObject): Part | undefined {
  const str = (value: unknown) => (typeof value === 'string' ? value : '');
  switch (block.type) {
    case 'text':
      return textPart(block);
    case 'thinking':
      return block.signature === undefined
        ? { type: 'thinking', text: str(block.thinking) }
        : { type: 'thinking', text: str(block.thinking), signature: str(block.signature) };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: str(block.data) };
    case 'tool_use':
      return {
        type: 'tool_call',
        id: str(block.id),
        name: str(block.name),
        arguments: argumentsText(block.input),
      };
    case 'server_tool_use':
      return { type: 'server_tool_call', id: str(block.id), name: str(block.name), payload: block };
    default:
      return isServerToolResult(block.type)
        ? { type: 'server_tool_result', id: str(block.tool_use_id), payload: block }
        : undefined;
  }
}

/** A `type: "message"` body; throws AdapterParseError for anything else. */
export function decodeMessage(body: string): { response: ModelResponse; json: JsonObject } {
  const json = parseJson(body);
  if (!isJsonObject(json) || json.type !== 'message' || !Array.isArray(json.content))
    throw new AdapterParseError('the provider answered with something that is not a Messages response.');
  const tier = servedTier(json.usage);
  const response: ModelResponse = {
    id: typeof json.id === 'string' ? json.id : '',
    content: json.content.flatMap((block) => (isJsonObject(block) ? (blockPart(block) ?? []) : [])),
    finishReason: finishReason(json.stop_reason),
    usage: isJsonObject(json.usage) ? usageFrom(json.usage) : undefined,
    ...(tier === undefined ? {} : { servedTier: tier }),
    ...servedModel(json.model),
  };
  return { response, json };
}
