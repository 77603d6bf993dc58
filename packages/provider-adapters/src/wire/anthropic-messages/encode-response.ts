/**
 * The internal model -> an Anthropic Messages response, for the Messages front door when the
 * upstream speaks another API (an upstream that speaks Messages is forwarded as it answered).
 */
import { isJsonObject, type JsonObject, parseJson } from '../../json.ts';
import type { Citation, Part } from '../../model/content.ts';
import type { FinishReason, ModelResponse, ServedTier } from '../../model/response.ts';
import { packToolCallId } from '../../model/tool-call-id.ts';
import { METERS } from '../../model/meters.ts';
import { NO_USAGE, type Usage } from '../../model/usage.ts';

export interface MessageEnvelope {
  /** `msg_...`: the message id the client is shown. */
  readonly id: string;
  /** The model name the client is shown (the gateway's exact version). */
  readonly model: string;
}

const STOP_REASONS: Readonly<Record<FinishReason, string>> = {
  stop: 'end_turn',
  length: 'max_tokens',
  tool_calls: 'tool_use',
  content_filter: 'refusal',
  pause: 'pause_turn',
};

export function stopReason(reason: FinishReason): string {
  return STOP_REASONS[reason];
}

/**
 * Anthropic's convention: `input_tokens` excludes cache reads and writes, which are reported
 * beside it; thinking is inside `output_tokens`.
 */
export function usageToAnthropic(usage: Usage, tier?: ServedTier): JsonObject {
  const uncached = Math.max(0, usage.inputTokens - usage.cachedReadTokens - usage.cacheWriteTokens);
  return {
    input_tokens: uncached,
    cache_creation_input_tokens: usage.cacheWriteTokens,
    cache_read_input_tokens: usage.cachedReadTokens,
    ...(usage.cacheWriteTokens > 0 ? { cache_creation: cacheCreation(usage) } : {}),
    output_tokens: usage.outputTokens,
    output_tokens_details: { thinking_tokens: usage.reasoningTokens },
    ...(usage.webSearchRequests > 0
      ? { server_tool_use: { web_search_requests: usage.webSearchRequests } }
      : {}),
    ...(tier === undefined ? {} : { service_tier: tier }),
  };
}

/** The writes by duration, as Anthropic splits them (from the meters: a write is 5m unless 1h). */
function cacheCreation(usage: Usage): JsonObject {
  const oneHour = usage.meters[METERS.cacheWrite1h] ?? 0;
  return {
    ephemeral_5m_input_tokens: usage.cacheWriteTokens - oneHour,
    ephemeral_1h_input_tokens: oneHour,
  };
}

export function citationBlock(citation: Citation): JsonObject {
  return {
    type: 'web_search_result_location',
    url: citation.url,
    title: citation.title ?? null,
    cited_text: citation.citedText ?? '',
  };
}

/** Tool arguments are JSON text in the model; Anthropic clients get the object. */
export function toolInput(args: string): JsonObject {
  const parsed = parseJson(args);
  return isJsonObject(parsed) ? parsed : {};
}

/** One output part as a content block; tool results and media are input-only and have none. */
export function contentBlock(part: Part): JsonObject | undefined {
  switch (part.type) {
    case 'text':
      return part.citations === undefined || part.citations.length === 0
        ? { type: 'text', text: part.text }
        : { type: 'text', text: part.text, citations: part.citations.map(citationBlock) };
    case 'thinking':
      return { type: 'thinking', thinking: part.text, signature: part.signature ?? '' };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: part.data };
    case 'tool_call':
      return {
        type: 'tool_use',
        id: packToolCallId(part.id, part.signature),
        name: part.name,
        input: toolInput(part.arguments),
      };
    case 'server_tool_call':
    case 'server_tool_result':
      return part.payload;
    default:
      return undefined;
  }
}

export function encodeMessage(response: ModelResponse, envelope: MessageEnvelope): JsonObject {
  return {
    id: envelope.id,
    type: 'message',
    role: 'assistant',
    model: envelope.model,
    content: response.content.flatMap((part) => contentBlock(part) ?? []),
    stop_reason: stopReason(response.finishReason),
    stop_sequence: null,
    usage: usageToAnthropic(response.usage ?? NO_USAGE, response.servedTier),
  };
}
