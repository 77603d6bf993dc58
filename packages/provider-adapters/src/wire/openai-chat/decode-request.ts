/**
 * OpenAI Chat Completions request -> the internal model, for upstreams of another API. An
 * upstream of the same API gets the client's body instead (see the adapter), so this only has
 * to carry what a translation can use; what it cannot carry it refuses, never drops.
 */
import { AdapterRequestError } from '../../adapter.ts';
import { isJsonObject, type JsonObject } from '../../json.ts';
import type { DocumentPart, ImagePart, MediaSource, Part, TextPart, Turn } from '../../model/content.ts';
import type { ModelRequest, ResponseFormat, Tool, ToolChoice } from '../../model/request.ts';
import { unpackToolCallId } from '../../model/tool-call-id.ts';
import type { ChatCompletionRequest } from './types.ts';

/** The client's request uses something the target API has no way to express (a 400). */
export class WireDecodeError extends AdapterRequestError {
  constructor(message: string) {
    super(message);
    this.name = 'WireDecodeError';
  }
}

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

function mediaSource(url: string): MediaSource {
  const data = DATA_URL.exec(url);
  return data ? { kind: 'base64', mediaType: data[1] ?? '', data: data[2] ?? '' } : { kind: 'url', url };
}

function contentPart(raw: unknown): TextPart | ImagePart | DocumentPart {
  if (!isJsonObject(raw)) throw new WireDecodeError('a content part must be an object');
  if (raw.type === 'text' && typeof raw.text === 'string') return { type: 'text', text: raw.text };
  if (raw.type === 'image_url' && isJsonObject(raw.image_url) && typeof raw.image_url.url === 'string') {
    const detail = raw.image_url.detail;
    return {
      type: 'image',
      source: mediaSource(raw.image_url.url),
      ...(typeof detail === 'string' ? { detail } : {}),
    };
  }
  if (raw.type === 'file' && isJsonObject(raw.file) && typeof raw.file.file_data === 'string') {
    const name = raw.file.filename;
    return {
      type: 'document',
      source: mediaSource(raw.file.file_data),
      ...(typeof name === 'string' ? { name } : {}),
    };
  }
  throw new WireDecodeError(`content parts of type '${String(raw.type)}' cannot be sent to this provider`);
}

function contentParts(content: unknown): Array<TextPart | ImagePart | DocumentPart> {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (Array.isArray(content)) return content.map(contentPart);
  throw new WireDecodeError('message content must be a string or an array of parts');
}

function assistantParts(message: JsonObject): Part[] {
  const parts: Part[] = [...contentParts(message.content)];
  if (typeof message.refusal === 'string' && message.refusal !== '')
    parts.push({ type: 'text', text: message.refusal });
  for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
    if (!isJsonObject(call) || !isJsonObject(call.function) || typeof call.id !== 'string') continue;
    const { id, signature } = unpackToolCallId(call.id);
    const args = call.function.arguments;
    parts.push({
      type: 'tool_call',
      id,
      name: String(call.function.name ?? ''),
      arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}),
      ...(signature === undefined ? {} : { signature }),
    });
  }
  return parts;
}

/** Consecutive turns of one role become one turn (tool results after user text, say). */
function pushTurn(turns: Turn[], role: Turn['role'], content: readonly Part[]): void {
  if (content.length === 0) return;
  const last = turns.at(-1);
  if (last?.role === role) turns[turns.length - 1] = { role, content: [...last.content, ...content] };
  else turns.push({ role, content });
}

function conversation(messages: readonly JsonObject[]): { system: TextPart[]; turns: Turn[] } {
  const system: TextPart[] = [];
  const turns: Turn[] = [];
  const toolNames = new Map<string, string>();
  for (const message of messages) {
    switch (message.role) {
      case 'system':
      case 'developer':
        for (const part of contentParts(message.content)) if (part.type === 'text') system.push(part);
        break;
      case 'user':
        pushTurn(turns, 'user', contentParts(message.content));
        break;
      case 'assistant': {
        const parts = assistantParts(message);
        for (const part of parts) if (part.type === 'tool_call') toolNames.set(part.id, part.name);
        pushTurn(turns, 'assistant', parts);
        break;
      }
      case 'tool':
      case 'function': {
        const callId = unpackToolCallId(String(message.tool_call_id ?? message.name ?? '')).id;
        const name = toolNames.get(callId);
        const content = contentParts(message.content);
        pushTurn(turns, 'user', [{ type: 'tool_result', callId, ...(name ? { name } : {}), content }]);
        break;
      }
      default:
        throw new WireDecodeError(
          `messages of role '${String(message.role)}' cannot be sent to this provider`,
        );
    }
  }
  return { system, turns };
}

function tools(request: ChatCompletionRequest): Tool[] {
  const out: Tool[] = [];
  for (const tool of request.tools ?? []) {
    if (tool.type !== 'function' || !tool.function)
      throw new WireDecodeError(`tools of type '${tool.type}' cannot be sent to this provider`);
    const fn = tool.function;
    out.push({
      type: 'function',
      name: fn.name,
      parameters: isJsonObject(fn.parameters) ? fn.parameters : { type: 'object', properties: {} },
      ...(typeof fn.description === 'string' ? { description: fn.description } : {}),
      ...(typeof fn.strict === 'boolean' ? { strict: fn.strict } : {}),
    });
  }
  const search = request.web_search_options;
  if (isJsonObject(search)) {
    const size = search.search_context_size;
    out.push({
      type: 'web_search',
      ...(size === 'low' || size === 'medium' || size === 'high' ? { contextSize: size } : {}),
      ...(isJsonObject(search.user_location) ? { userLocation: search.user_location } : {}),
    });
  }
  return out;
}

function toolChoice(raw: unknown): ToolChoice | undefined {
  if (raw === 'auto' || raw === 'none' || raw === 'required') return { type: raw };
  if (isJsonObject(raw) && isJsonObject(raw.function) && typeof raw.function.name === 'string')
    return { type: 'tool', name: raw.function.name };
  return undefined;
}

function responseFormat(raw: unknown): ResponseFormat | undefined {
  if (!isJsonObject(raw)) return undefined;
  if (raw.type === 'json_object' || raw.type === 'text') return { type: raw.type };
  if (raw.type === 'json_schema' && isJsonObject(raw.json_schema) && isJsonObject(raw.json_schema.schema)) {
    const strict = raw.json_schema.strict;
    return {
      type: 'json_schema',
      name: String(raw.json_schema.name ?? 'response'),
      schema: raw.json_schema.schema,
      ...(typeof strict === 'boolean' ? { strict } : {}),
    };
  }
  return undefined;
}

function optionalNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export function decodeChatRequest(request: ChatCompletionRequest): ModelRequest {
  // Other APIs answer with one completion; dropping `n` silently would return fewer than asked.
  if (typeof request.n === 'number' && request.n > 1)
    throw new WireDecodeError(`'n' > 1 (several completions) cannot be sent to this provider`);
  const { system, turns } = conversation(request.messages);
  const stop = request.stop;
  const optional = {
    toolChoice: toolChoice(request.tool_choice),
    parallelToolCalls:
      typeof request.parallel_tool_calls === 'boolean' ? request.parallel_tool_calls : undefined,
    maxOutputTokens: optionalNumber(request.max_completion_tokens ?? request.max_tokens),
    temperature: optionalNumber(request.temperature),
    topP: optionalNumber(request.top_p),
    stop: typeof stop === 'string' ? [stop] : Array.isArray(stop) ? stop.map(String) : undefined,
    responseFormat: responseFormat(request.response_format),
    user: typeof request.user === 'string' ? request.user : undefined,
  };
  const defined = Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== undefined));
  return { system, turns, tools: tools(request), stream: request.stream === true, ...defined };
}
