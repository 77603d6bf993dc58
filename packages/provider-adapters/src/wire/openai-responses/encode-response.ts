/**
 * The internal model -> a Responses `response` object, for the Responses front door when the
 * upstream spoke another API. Output items in the order the model produced them: `reasoning`
 * (thinking; a Claude signature rides in `encrypted_content`, so a `store: false` client sends
 * it back with the next turn), `message` (text with url citations), `function_call`.
 */
import type { JsonObject } from '../../json.ts';
import type { Citation, Part } from '../../model/content.ts';
import type { FinishReason, ModelResponse, ServedTier } from '../../model/response.ts';
import { packToolCallId } from '../../model/tool-call-id.ts';
import type { Usage } from '../../model/usage.ts';
import type { ResponseEnvelope } from './types.ts';
import { usageToResponses } from './usage.ts';

/** Item ids derived from the response id: `msg_…_0`, `rs_…_1`, `fc_…_2`. */
export function itemId(envelope: ResponseEnvelope, prefix: 'msg' | 'rs' | 'fc', index: number): string {
  return `${prefix}_${envelope.id.replace(/^resp_/, '')}_${index}`;
}

export function annotation(cite: Citation): JsonObject {
  return {
    type: 'url_citation',
    url: cite.url,
    title: cite.title ?? '',
    start_index: cite.startIndex ?? 0,
    end_index: cite.endIndex ?? 0,
  };
}

export function messageItem(id: string, text: string, cites: readonly Citation[], done: boolean): JsonObject {
  const content = done
    ? [{ type: 'output_text', text, annotations: cites.map(annotation), logprobs: [] }]
    : [];
  return { id, type: 'message', status: done ? 'completed' : 'in_progress', role: 'assistant', content };
}

export function reasoningItem(id: string, summary: string, signature: string | undefined): JsonObject {
  return {
    id,
    type: 'reasoning',
    summary: summary === '' ? [] : [{ type: 'summary_text', text: summary }],
    ...(signature === undefined || signature === '' ? {} : { encrypted_content: signature }),
  };
}

export function functionCallItem(
  id: string,
  call: { readonly callId: string; readonly name: string; readonly arguments: string },
  done: boolean,
): JsonObject {
  return {
    id,
    type: 'function_call',
    status: done ? 'completed' : 'in_progress',
    call_id: call.callId,
    name: call.name,
    arguments: call.arguments,
  };
}

/** `status` and `incomplete_details` of a finished response. */
export function finishStatus(reason: FinishReason): {
  status: string;
  incomplete_details: JsonObject | null;
} {
  if (reason === 'length')
    return { status: 'incomplete', incomplete_details: { reason: 'max_output_tokens' } };
  if (reason === 'content_filter')
    return { status: 'incomplete', incomplete_details: { reason: 'content_filter' } };
  return { status: 'completed', incomplete_details: null };
}

export function tierName(tier: ServedTier | undefined): string {
  return tier === undefined || tier === 'standard' ? 'default' : tier;
}

/** The response object around its output (also the `response` of stream lifecycle events). */
export function responseObject(
  envelope: ResponseEnvelope,
  fields: {
    readonly status: string;
    readonly output: readonly JsonObject[];
    readonly usage: Usage | undefined;
    readonly tier?: ServedTier | undefined;
    readonly incomplete_details?: JsonObject | null;
  },
): JsonObject {
  return {
    id: envelope.id,
    object: 'response',
    created_at: envelope.createdAt,
    status: fields.status,
    error: null,
    incomplete_details: fields.incomplete_details ?? null,
    instructions: envelope.instructions ?? null,
    model: envelope.model,
    output: fields.output,
    parallel_tool_calls: true,
    previous_response_id: null,
    service_tier: tierName(fields.tier),
    store: false,
    temperature: envelope.temperature ?? null,
    top_p: envelope.topP ?? null,
    tool_choice: envelope.toolChoice ?? 'auto',
    tools: envelope.tools ?? [],
    usage: fields.usage === undefined ? null : usageToResponses(fields.usage),
    metadata: {},
  };
}

/** Output items for the response's parts; consecutive text parts share one message item. */
function outputItems(envelope: ResponseEnvelope, parts: readonly Part[]): JsonObject[] {
  const items: JsonObject[] = [];
  let text: { text: string; cites: Citation[] } | undefined;
  const flush = () => {
    if (text) items.push(messageItem(itemId(envelope, 'msg', items.length), text.text, text.cites, true));
    text = undefined;
  };
  for (const part of parts) {
    if (part.type === 'text') {
      text ??= { text: '', cites: [] };
      text.text += part.text;
      text.cites.push(...(part.citations ?? []));
      continue;
    }
    flush();
    if (part.type === 'thinking')
      items.push(reasoningItem(itemId(envelope, 'rs', items.length), part.text, part.signature));
    else if (part.type === 'redacted_thinking')
      items.push(reasoningItem(itemId(envelope, 'rs', items.length), '', part.data));
    else if (part.type === 'tool_call') {
      const call = {
        callId: packToolCallId(part.id, part.signature),
        name: part.name,
        arguments: part.arguments,
      };
      items.push(functionCallItem(itemId(envelope, 'fc', items.length), call, true));
    }
  }
  flush();
  return items;
}

export function encodeResponse(response: ModelResponse, envelope: ResponseEnvelope): JsonObject {
  return responseObject(envelope, {
    ...finishStatus(response.finishReason),
    output: outputItems(envelope, response.content),
    usage: response.usage,
    tier: response.servedTier,
  });
}
