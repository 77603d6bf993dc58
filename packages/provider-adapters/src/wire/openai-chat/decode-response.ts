/** OpenAI Chat Completions responses and stream chunks -> the internal model. */
import { isJsonObject, type JsonObject, servedModel } from '../../json.ts';
import type { Citation, Part } from '../../model/content.ts';
import type { FinishReason, ModelResponse, ServedTier, StreamEvent } from '../../model/response.ts';
import { unpackToolCallId } from '../../model/tool-call-id.ts';
import { usageFromOpenAI } from './usage.ts';

const FINISH: Readonly<Record<string, FinishReason>> = {
  stop: 'stop',
  length: 'length',
  tool_calls: 'tool_calls',
  function_call: 'tool_calls',
  content_filter: 'content_filter',
};

export function finishReasonOf(value: unknown): FinishReason | undefined {
  return typeof value === 'string' ? (FINISH[value] ?? 'stop') : undefined;
}

/** OpenAI echoes the tier it used: `flex`, `priority` (also for `fast`), else standard. */
export function servedTierOf(value: unknown): ServedTier | undefined {
  if (value === 'flex') return 'flex';
  if (value === 'priority' || value === 'fast') return 'priority';
  return typeof value === 'string' ? 'standard' : undefined;
}

function citations(annotations: unknown): Citation[] {
  if (!Array.isArray(annotations)) return [];
  return annotations.flatMap((entry: unknown) => {
    if (!isJsonObject(entry) || !isJsonObject(entry.url_citation)) return [];
    const cite = entry.url_citation;
    return [
      {
        type: 'url' as const,
        url: String(cite.url ?? ''),
        ...(typeof cite.title === 'string' ? { title: cite.title } : {}),
        ...(typeof cite.start_index === 'number' ? { startIndex: cite.start_index } : {}),
        ...(typeof cite.end_index === 'number' ? { endIndex: cite.end_index } : {}),
      },
    ];
  });
}

function messageParts(message: JsonObject): Part[] {
  const parts: Part[] = [];
  const found = citations(message.annotations);
  if (typeof message.content === 'string' && message.content !== '')
    parts.push({ type: 'text', text: message.content, ...(found.length > 0 ? { citations: found } : {}) });
  if (typeof message.refusal === 'string' && message.refusal !== '')
    parts.push({ type: 'text', text: message.refusal });
  for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
    if (!isJsonObject(call) || !isJsonObject(call.function)) continue;
    const { id, signature } = unpackToolCallId(String(call.id ?? ''));
    parts.push({
      type: 'tool_call',
      id,
      name: String(call.function.name ?? ''),
      arguments: String(call.function.arguments ?? ''),
      ...(signature === undefined ? {} : { signature }),
    });
  }
  return parts;
}

/** A completion (already checked to have a choices array) as a model response. */
export function decodeChatCompletion(body: JsonObject): ModelResponse {
  const choices = Array.isArray(body.choices) ? body.choices : [];
  const first = choices.find(isJsonObject);
  const message = first && isJsonObject(first.message) ? first.message : {};
  const tier = servedTierOf(body.service_tier);
  return {
    id: String(body.id ?? ''),
    content: messageParts(message),
    finishReason: finishReasonOf(first?.finish_reason) ?? 'stop',
    usage: usageFromOpenAI(body.usage),
    ...(tier ? { servedTier: tier } : {}),
    ...servedModel(body.model),
  };
}

/** Chunks -> events. Stateful: a tool call's first appearance at an index is its start. */
export class ChatChunkDecoder {
  readonly #started = new Set<number>();
  #id = '';

  decode(chunk: JsonObject): StreamEvent[] {
    const events: StreamEvent[] = [];
    if (this.#id === '' && typeof chunk.id === 'string') {
      this.#id = chunk.id;
      events.push({ type: 'start', id: chunk.id, ...servedModel(chunk.model) });
    }
    const tier = servedTierOf(chunk.service_tier);
    if (tier && events.length > 0) events.push({ type: 'served_tier', tier });
    for (const choice of Array.isArray(chunk.choices) ? chunk.choices : []) {
      if (!isJsonObject(choice) || (choice.index !== undefined && choice.index !== 0)) continue;
      const delta = isJsonObject(choice.delta) ? choice.delta : {};
      if (typeof delta.content === 'string' && delta.content !== '')
        events.push({ type: 'text', text: delta.content });
      if (typeof delta.refusal === 'string' && delta.refusal !== '')
        events.push({ type: 'text', text: delta.refusal });
      for (const call of Array.isArray(delta.tool_calls) ? delta.tool_calls : [])
        events.push(...this.#toolCall(call));
      const finish = finishReasonOf(choice.finish_reason);
      if (finish) events.push({ type: 'finish', reason: finish });
    }
    const usage = usageFromOpenAI(chunk.usage);
    if (usage) events.push({ type: 'usage', usage });
    return events;
  }

  #toolCall(call: unknown): StreamEvent[] {
    if (!isJsonObject(call) || typeof call.index !== 'number') return [];
    const fn = isJsonObject(call.function) ? call.function : {};
    const events: StreamEvent[] = [];
    if (!this.#started.has(call.index)) {
      this.#started.add(call.index);
      const { id, signature } = unpackToolCallId(String(call.id ?? ''));
      events.push({
        type: 'tool_call_start',
        index: call.index,
        id,
        name: String(fn.name ?? ''),
        ...(signature === undefined ? {} : { signature }),
      });
    }
    if (typeof fn.arguments === 'string' && fn.arguments !== '')
      events.push({ type: 'tool_call_delta', index: call.index, arguments: fn.arguments });
    return events;
  }
}
