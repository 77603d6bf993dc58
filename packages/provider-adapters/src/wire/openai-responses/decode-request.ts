/**
 * OpenAI Responses request -> the internal model, for upstreams of another API (an upstream of
 * the same API gets the client's body instead). `store: false` clients (Codex CLI) send the whole
 * conversation as `input` items each turn: messages, `function_call` / `function_call_output`
 * pairs and `reasoning` items. What a translation cannot carry it refuses, never drops.
 */
import { AdapterRequestError } from '../../adapter.ts';
import { isJsonObject, type JsonObject } from '../../json.ts';
import type { DocumentPart, ImagePart, MediaSource, Part, TextPart, Turn } from '../../model/content.ts';
import type { ModelRequest, ResponseFormat, Tool, ToolChoice } from '../../model/request.ts';
import { unpackToolCallId } from '../../model/tool-call-id.ts';

type MediaPart = TextPart | ImagePart | DocumentPart;

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

function refuse(what: string): never {
  throw new AdapterRequestError(`${what} cannot be sent to this provider`);
}

function mediaSource(url: string): MediaSource {
  const data = DATA_URL.exec(url);
  return data ? { kind: 'base64', mediaType: data[1] ?? '', data: data[2] ?? '' } : { kind: 'url', url };
}

function contentPart(raw: unknown): MediaPart {
  if (!isJsonObject(raw)) refuse('a content part that is not an object');
  switch (raw.type) {
    case 'input_text':
    case 'output_text':
    case 'text':
      return { type: 'text', text: String(raw.text ?? '') };
    case 'refusal':
      return { type: 'text', text: String(raw.refusal ?? '') };
    case 'input_image':
      if (typeof raw.image_url !== 'string') refuse('an input_image without image_url (file ids)');
      return {
        type: 'image',
        source: mediaSource(raw.image_url),
        ...(typeof raw.detail === 'string' ? { detail: raw.detail } : {}),
      };
    case 'input_file': {
      const url = typeof raw.file_data === 'string' ? raw.file_data : raw.file_url;
      if (typeof url !== 'string') refuse('an input_file without file_data or file_url (file ids)');
      const name = raw.filename;
      return { type: 'document', source: mediaSource(url), ...(typeof name === 'string' ? { name } : {}) };
    }
    default:
      return refuse(`content parts of type '${String(raw.type)}'`);
  }
}

function contentParts(content: unknown): MediaPart[] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (Array.isArray(content)) return content.map(contentPart);
  return refuse('message content that is neither a string nor a list of parts');
}

/** Consecutive items of one role become one turn (a reasoning item, then its function calls). */
function pushTurn(turns: Turn[], role: Turn['role'], content: readonly Part[]): void {
  if (content.length === 0) return;
  const last = turns.at(-1);
  if (last?.role === role) turns[turns.length - 1] = { role, content: [...last.content, ...content] };
  else turns.push({ role, content });
}

/**
 * A reasoning item: its summary text and `encrypted_content`, which is where the gateway puts a
 * Claude thinking block's signature (see encode-response.ts), so a tool loop sends it back intact.
 * Without any summary it is Anthropic's redacted thinking.
 */
function reasoningPart(item: JsonObject): Part | undefined {
  const summary = Array.isArray(item.summary) ? item.summary : [];
  const text = summary.map((part) => (isJsonObject(part) ? String(part.text ?? '') : '')).join('');
  const encrypted = typeof item.encrypted_content === 'string' ? item.encrypted_content : undefined;
  if (text === '' && encrypted !== undefined) return { type: 'redacted_thinking', data: encrypted };
  if (text === '' && encrypted === undefined) return undefined;
  return { type: 'thinking', text, ...(encrypted === undefined ? {} : { signature: encrypted }) };
}

function callPart(item: JsonObject): Part {
  const { id, signature } = unpackToolCallId(String(item.call_id ?? ''));
  const args = item.arguments;
  return {
    type: 'tool_call',
    id,
    name: String(item.name ?? ''),
    arguments: typeof args === 'string' ? args : JSON.stringify(args ?? {}),
    ...(signature === undefined ? {} : { signature }),
  };
}

function outputPart(item: JsonObject, names: ReadonlyMap<string, string>): Part {
  const callId = unpackToolCallId(String(item.call_id ?? '')).id;
  const name = names.get(callId);
  return { type: 'tool_result', callId, ...(name ? { name } : {}), content: contentParts(item.output) };
}

function conversation(input: unknown): { system: TextPart[]; turns: Turn[] } {
  const system: TextPart[] = [];
  const turns: Turn[] = [];
  const names = new Map<string, string>();
  const items = typeof input === 'string' ? [{ role: 'user', content: input }] : input;
  if (!Array.isArray(items)) return refuse('an input that is neither a string nor a list of items');
  for (const item of items as unknown[]) {
    if (!isJsonObject(item)) refuse('an input item that is not an object');
    const type = item.type ?? 'message';
    if (type === 'message') {
      if (item.role === 'system' || item.role === 'developer') {
        for (const part of contentParts(item.content)) if (part.type === 'text') system.push(part);
      } else if (item.role === 'user' || item.role === 'assistant') {
        pushTurn(turns, item.role, contentParts(item.content));
      } else refuse(`messages of role '${String(item.role)}'`);
    } else if (type === 'function_call') {
      const part = callPart(item);
      if (part.type === 'tool_call') names.set(part.id, part.name);
      pushTurn(turns, 'assistant', [part]);
    } else if (type === 'function_call_output') {
      pushTurn(turns, 'user', [outputPart(item, names)]);
    } else if (type === 'reasoning') {
      const part = reasoningPart(item);
      if (part) pushTurn(turns, 'assistant', [part]);
    } else refuse(`input items of type '${String(type)}'`);
  }
  return { system, turns };
}

function tools(raw: unknown): Tool[] {
  const out: Tool[] = [];
  for (const tool of Array.isArray(raw) ? (raw as unknown[]) : []) {
    if (!isJsonObject(tool)) continue;
    if (tool.type === 'web_search' || tool.type === 'web_search_preview') {
      const size = tool.search_context_size;
      const filters = isJsonObject(tool.filters) ? tool.filters.allowed_domains : undefined;
      out.push({
        type: 'web_search',
        ...(size === 'low' || size === 'medium' || size === 'high' ? { contextSize: size } : {}),
        ...(isJsonObject(tool.user_location) ? { userLocation: tool.user_location } : {}),
        ...(Array.isArray(filters) ? { allowedDomains: filters.map(String) } : {}),
      });
      continue;
    }
    if (tool.type !== 'function' || typeof tool.name !== 'string')
      refuse(`tools of type '${String(tool.type)}'`);
    out.push({
      type: 'function',
      name: tool.name,
      parameters: isJsonObject(tool.parameters) ? tool.parameters : { type: 'object', properties: {} },
      ...(typeof tool.description === 'string' ? { description: tool.description } : {}),
      ...(typeof tool.strict === 'boolean' ? { strict: tool.strict } : {}),
    });
  }
  return out;
}

function toolChoice(raw: unknown): ToolChoice | undefined {
  if (raw === 'auto' || raw === 'none' || raw === 'required') return { type: raw };
  if (isJsonObject(raw) && raw.type === 'function' && typeof raw.name === 'string')
    return { type: 'tool', name: raw.name };
  return undefined;
}

function responseFormat(text: unknown): ResponseFormat | undefined {
  const format = isJsonObject(text) && isJsonObject(text.format) ? text.format : undefined;
  if (!format) return undefined;
  if (format.type === 'json_object' || format.type === 'text') return { type: format.type };
  if (format.type === 'json_schema' && isJsonObject(format.schema))
    return {
      type: 'json_schema',
      name: String(format.name ?? 'response'),
      schema: format.schema,
      ...(typeof format.strict === 'boolean' ? { strict: format.strict } : {}),
    };
  return undefined;
}

function optionalNumber(value: unknown): number | undefined {
  return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
}

export function decodeResponsesRequest(body: JsonObject): ModelRequest {
  const { system, turns } = conversation(body.input);
  if (typeof body.instructions === 'string' && body.instructions !== '')
    system.unshift({ type: 'text', text: body.instructions });
  const user = body.safety_identifier ?? body.user;
  const optional = {
    toolChoice: toolChoice(body.tool_choice),
    parallelToolCalls: typeof body.parallel_tool_calls === 'boolean' ? body.parallel_tool_calls : undefined,
    maxOutputTokens: optionalNumber(body.max_output_tokens),
    temperature: optionalNumber(body.temperature),
    topP: optionalNumber(body.top_p),
    responseFormat: responseFormat(body.text),
    user: typeof user === 'string' ? user : undefined,
  };
  const defined = Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== undefined));
  return { system, turns, tools: tools(body.tools), stream: body.stream === true, ...defined };
}
