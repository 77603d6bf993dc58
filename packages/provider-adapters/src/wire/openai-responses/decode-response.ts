/** Responses `response` objects -> the internal model (metering, and clients of other APIs). */
import { isJsonObject, type JsonObject, servedModel } from '../../json.ts';
import type { Citation, Part } from '../../model/content.ts';
import type { FinishReason, ModelResponse, ServedTier } from '../../model/response.ts';
import { unpackToolCallId } from '../../model/tool-call-id.ts';
import { usageFromResponses } from './usage.ts';

/** OpenAI echoes the tier it used: `flex`, `priority`, else standard. */
export function servedTierOf(value: unknown): ServedTier | undefined {
  if (value === 'flex') return 'flex';
  if (value === 'priority' || value === 'fast') return 'priority';
  return typeof value === 'string' ? 'standard' : undefined;
}

export function citationsOf(annotations: unknown): Citation[] {
  if (!Array.isArray(annotations)) return [];
  return annotations.flatMap((entry: unknown) => {
    if (!isJsonObject(entry) || entry.type !== 'url_citation') return [];
    return [
      {
        type: 'url' as const,
        url: String(entry.url ?? ''),
        ...(typeof entry.title === 'string' ? { title: entry.title } : {}),
        ...(typeof entry.start_index === 'number' ? { startIndex: entry.start_index } : {}),
        ...(typeof entry.end_index === 'number' ? { endIndex: entry.end_index } : {}),
      },
    ];
  });
}

function messageParts(item: JsonObject): Part[] {
  const parts: Part[] = [];
  for (const part of Array.isArray(item.content) ? item.content : []) {
    if (!isJsonObject(part)) continue;
    if (part.type === 'output_text' && typeof part.text === 'string') {
      const found = citationsOf(part.annotations);
      parts.push({ type: 'text', text: part.text, ...(found.length > 0 ? { citations: found } : {}) });
    } else if (part.type === 'refusal' && typeof part.refusal === 'string')
      parts.push({ type: 'text', text: part.refusal });
  }
  return parts;
}

/** One output item as parts: a message's text, a function call, a reasoning item's summary. */
export function itemParts(item: JsonObject): Part[] {
  switch (item.type) {
    case 'message':
      return messageParts(item);
    case 'function_call': {
      const { id, signature } = unpackToolCallId(String(item.call_id ?? ''));
      return [
        {
          type: 'tool_call',
          id,
          name: String(item.name ?? ''),
          arguments: String(item.arguments ?? ''),
          ...(signature === undefined ? {} : { signature }),
        },
      ];
    }
    case 'reasoning': {
      const summary = Array.isArray(item.summary) ? item.summary : [];
      const text = summary.map((part) => (isJsonObject(part) ? String(part.text ?? '') : '')).join('');
      const signature = typeof item.encrypted_content === 'string' ? item.encrypted_content : undefined;
      if (text === '' && signature === undefined) return [];
      return [{ type: 'thinking', text, ...(signature === undefined ? {} : { signature }) }];
    }
    default:
      // Hosted tool calls (web search, code interpreter, ...) have no client-side counterpart.
      return [];
  }
}

/** Why the response ended: `incomplete` says why; function calls mean tool_calls. */
export function responseFinish(response: JsonObject, parts: readonly Part[]): FinishReason {
  if (response.status === 'incomplete') {
    const reason = isJsonObject(response.incomplete_details) ? response.incomplete_details.reason : undefined;
    return reason === 'content_filter' ? 'content_filter' : 'length';
  }
  return parts.some((part) => part.type === 'tool_call') ? 'tool_calls' : 'stop';
}

export function decodeResponse(body: JsonObject): ModelResponse {
  const content = (Array.isArray(body.output) ? body.output : []).filter(isJsonObject).flatMap(itemParts);
  const tier = servedTierOf(body.service_tier);
  return {
    id: String(body.id ?? ''),
    content,
    finishReason: responseFinish(body, content),
    usage: usageFromResponses(body.usage),
    ...(tier ? { servedTier: tier } : {}),
    ...servedModel(body.model),
  };
}

/** A 2xx body that is a response object (`object: "response"` with an output list). */
export function isResponseObject(value: unknown): value is JsonObject {
  return isJsonObject(value) && Array.isArray(value.output) && (value.object ?? 'response') === 'response';
}
