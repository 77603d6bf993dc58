/**
 * The internal model -> the conversation of a Responses request (`input` items), for a
 * same-API body whose conversation the gateway changed (compression): system text leads as a
 * developer message, tool results are `function_call_output` items, thinking goes back as a
 * `reasoning` item with its signature as `encrypted_content`.
 */
import { AdapterRequestError } from '../../adapter.ts';
import type { JsonObject } from '../../json.ts';
import type { MediaSource, Part, Turn } from '../../model/content.ts';
import type { ModelRequest } from '../../model/request.ts';
import { boundedCallId, wireCallIds } from '../../model/tool-call-id.ts';

/** The longest `call_id` OpenAI's Responses API takes. */
const MAX_CALL_ID = 64;

function url(source: MediaSource): string {
  return source.kind === 'url' ? source.url : `data:${source.mediaType};base64,${source.data}`;
}

function inputPart(part: Part): JsonObject {
  switch (part.type) {
    case 'text':
      return { type: 'input_text', text: part.text };
    case 'image':
      return { type: 'input_image', image_url: url(part.source), detail: part.detail ?? 'auto' };
    case 'document':
      return part.source.kind === 'url'
        ? { type: 'input_file', file_url: part.source.url }
        : { type: 'input_file', file_data: url(part.source), ...(part.name ? { filename: part.name } : {}) };
    default:
      throw new AdapterRequestError(`a ${part.type} part cannot be sent to this provider in a user turn`);
  }
}

function userItems(turn: Turn, callIds: ReadonlyMap<string, string>): JsonObject[] {
  const items: JsonObject[] = [];
  let pending: JsonObject[] = [];
  const flush = () => {
    if (pending.length > 0) items.push({ type: 'message', role: 'user', content: pending });
    pending = [];
  };
  for (const part of turn.content) {
    if (part.type !== 'tool_result') {
      pending.push(inputPart(part));
      continue;
    }
    flush();
    const text = part.content.every((item) => item.type === 'text');
    const output = text ? part.content.map((item) => item.text).join('') : part.content.map(inputPart);
    items.push({
      type: 'function_call_output',
      call_id: callIds.get(part.callId) ?? boundedCallId(part.callId, MAX_CALL_ID),
      output,
    });
  }
  flush();
  return items;
}

function assistantItems(turn: Turn, callIds: ReadonlyMap<string, string>): JsonObject[] {
  const items: JsonObject[] = [];
  for (const part of turn.content) {
    if (part.type === 'text')
      items.push({ type: 'message', role: 'assistant', content: [{ type: 'output_text', text: part.text }] });
    else if (part.type === 'thinking' || part.type === 'redacted_thinking') {
      const text = part.type === 'thinking' ? part.text : '';
      const encrypted = part.type === 'thinking' ? part.signature : part.data;
      items.push({
        type: 'reasoning',
        summary: text === '' ? [] : [{ type: 'summary_text', text }],
        ...(encrypted === undefined ? {} : { encrypted_content: encrypted }),
      });
    } else if (part.type === 'tool_call')
      items.push({
        type: 'function_call',
        call_id: callIds.get(part.id) ?? part.id,
        name: part.name,
        arguments: part.arguments,
      });
  }
  return items;
}

/** `input` for `request`'s system prompt and turns (the caller drops `instructions`). */
export function encodeResponsesInput(request: ModelRequest): JsonObject[] {
  const system = request.system.map((part) => part.text).join('\n\n');
  const items: JsonObject[] =
    system === ''
      ? []
      : [{ type: 'message', role: 'developer', content: [{ type: 'input_text', text: system }] }];
  const callIds = wireCallIds(request.turns, MAX_CALL_ID);
  for (const turn of request.turns)
    items.push(...(turn.role === 'user' ? userItems(turn, callIds) : assistantItems(turn, callIds)));
  return items;
}
