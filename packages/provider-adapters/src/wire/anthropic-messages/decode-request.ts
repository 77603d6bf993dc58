/**
 * Anthropic Messages request -> the internal model, for upstreams of another API (an upstream
 * that speaks Messages gets the client's body as sent instead). Everything the model can hold
 * is kept: system as a string or blocks, cache hints, thinking with its signature, tool calls
 * and results, images, documents, web search, server-tool blocks. What another API cannot
 * express at all (a server tool other than web search, an unknown block) is refused, not dropped.
 */
import { AdapterRequestError } from '../../adapter.ts';
import { isJsonObject, type JsonObject } from '../../json.ts';
import type {
  CacheHint,
  DocumentPart,
  ImagePart,
  MediaSource,
  Part,
  TextPart,
  ToolResultPart,
  Turn,
} from '../../model/content.ts';
import type { ModelRequest, ResponseFormat, Tool, ToolChoice } from '../../model/request.ts';
import { argumentsText, blockPart, citationFrom, isServerToolResult } from './decode.ts';

/** The client's request uses something the target API has no way to express (a 400). */
export class MessagesDecodeError extends AdapterRequestError {
  constructor(message: string) {
    super(message);
    this.name = 'MessagesDecodeError';
  }
}

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

function cacheOf(block: JsonObject): { cache?: CacheHint } {
  const control = block.cache_control;
  if (!isJsonObject(control) || control.type !== 'ephemeral') return {};
  const ttl = control.ttl === '5m' || control.ttl === '1h' ? control.ttl : undefined;
  return { cache: ttl === undefined ? { type: 'ephemeral' } : { type: 'ephemeral', ttl } };
}

function textPart(block: JsonObject): TextPart {
  const citations = Array.isArray(block.citations)
    ? block.citations.flatMap((c) => citationFrom(c) ?? [])
    : [];
  return {
    type: 'text',
    text: str(block.text) ?? '',
    ...cacheOf(block),
    ...(citations.length > 0 ? { citations } : {}),
  };
}

function mediaSource(raw: unknown, what: string): MediaSource {
  if (isJsonObject(raw)) {
    if (raw.type === 'url' && typeof raw.url === 'string') return { kind: 'url', url: raw.url };
    if (raw.type === 'base64' && typeof raw.media_type === 'string' && typeof raw.data === 'string')
      return { kind: 'base64', mediaType: raw.media_type, data: raw.data };
    // Plain-text documents: carried as base64 text, which the Messages encoder turns back.
    if (raw.type === 'text' && typeof raw.data === 'string')
      return {
        kind: 'base64',
        mediaType: 'text/plain',
        data: Buffer.from(raw.data, 'utf8').toString('base64'),
      };
  }
  const type = isJsonObject(raw) ? String(raw.type) : typeof raw;
  throw new MessagesDecodeError(`${what} sources of type '${type}' cannot be sent to this provider`);
}

function imagePart(block: JsonObject): ImagePart {
  return { type: 'image', source: mediaSource(block.source, 'image'), ...cacheOf(block) };
}

function documentPart(block: JsonObject): DocumentPart {
  const title = str(block.title);
  return {
    type: 'document',
    source: mediaSource(block.source, 'document'),
    ...(title === undefined ? {} : { name: title }),
    ...cacheOf(block),
  };
}

function resultContent(content: unknown): ToolResultPart['content'] {
  if (content === undefined || content === null) return [];
  if (typeof content === 'string') return content === '' ? [] : [{ type: 'text', text: content }];
  if (!Array.isArray(content))
    throw new MessagesDecodeError('tool_result content must be a string or blocks');
  return content.map((item) => {
    const block = isJsonObject(item) ? item : {};
    if (block.type === 'text') return textPart(block);
    if (block.type === 'image') return imagePart(block);
    if (block.type === 'document') return documentPart(block);
    throw new MessagesDecodeError(
      `tool_result blocks of type '${String(block.type)}' cannot be sent to this provider`,
    );
  });
}

/** Tool results carry no function name; Gemini needs it, so it is taken from the matching call. */
function toolResultPart(block: JsonObject, names: ReadonlyMap<string, string>): ToolResultPart {
  const callId = str(block.tool_use_id) ?? '';
  const name = names.get(callId);
  return {
    type: 'tool_result',
    callId,
    ...(name === undefined ? {} : { name }),
    content: resultContent(block.content),
    ...(block.is_error === true ? { isError: true } : {}),
    ...cacheOf(block),
  };
}

function part(block: JsonObject, names: Map<string, string>): Part {
  switch (block.type) {
    case 'text':
      return textPart(block);
    case 'image':
      return imagePart(block);
    case 'document':
      return documentPart(block);
    case 'tool_use': {
      const id = str(block.id) ?? '';
      const name = str(block.name) ?? '';
      names.set(id, name);
      return { type: 'tool_call', id, name, arguments: argumentsText(block.input) };
    }
    case 'tool_result':
      return toolResultPart(block, names);
    case 'thinking':
    case 'redacted_thinking':
    case 'server_tool_use':
      return blockPart(block) as Part;
    default:
      if (isServerToolResult(block.type)) return blockPart(block) as Part;
      throw new MessagesDecodeError(
        `content blocks of type '${String(block.type)}' cannot be sent to this provider`,
      );
  }
}

function turns(messages: readonly unknown[]): Turn[] {
  const names = new Map<string, string>();
  return messages.map((raw) => {
    const message = isJsonObject(raw) ? raw : {};
    const role = message.role === 'assistant' ? 'assistant' : 'user';
    const { content } = message;
    if (typeof content === 'string')
      return { role, content: content === '' ? [] : [{ type: 'text', text: content }] };
    if (!Array.isArray(content)) throw new MessagesDecodeError('message content must be a string or blocks');
    return { role, content: content.map((block) => part(isJsonObject(block) ? block : {}, names)) };
  });
}

function system(raw: unknown): TextPart[] {
  if (raw === undefined || raw === null) return [];
  if (typeof raw === 'string') return raw === '' ? [] : [{ type: 'text', text: raw }];
  if (!Array.isArray(raw)) throw new MessagesDecodeError('system must be a string or text blocks');
  return raw.map((block) => textPart(isJsonObject(block) ? block : {}));
}

function isSystemTurn(message: unknown): message is JsonObject {
  return isJsonObject(message) && message.role === 'system';
}

/**
 * Claude Code 2.1 sends `system` turns between the others (its environment, tool changes). No
 * other API takes a system message mid-conversation, so their text joins the system prompt, as
 * Chat Completions' system messages do: only their place in the conversation is lost.
 */
function systemTurns(messages: readonly unknown[]): TextPart[] {
  return messages.filter(isSystemTurn).flatMap((message) => {
    const { content } = message;
    if (Array.isArray(content) && content.some((block) => !isJsonObject(block) || block.type !== 'text'))
      throw new MessagesDecodeError('system turns can hold only text blocks');
    return system(content);
  });
}

function strings(value: unknown): string[] | undefined {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : undefined;
}

function tool(raw: unknown): Tool {
  const spec = isJsonObject(raw) ? raw : {};
  const type = str(spec.type);
  if (type === undefined || type === 'custom') {
    const description = str(spec.description);
    return {
      type: 'function',
      name: str(spec.name) ?? '',
      ...(description === undefined ? {} : { description }),
      parameters: isJsonObject(spec.input_schema) ? spec.input_schema : { type: 'object' },
      ...(typeof spec.strict === 'boolean' ? { strict: spec.strict } : {}),
      ...cacheOf(spec),
    };
  }
  if (type.startsWith('web_search_')) {
    const allowed = strings(spec.allowed_domains);
    const blocked = strings(spec.blocked_domains);
    return {
      type: 'web_search',
      ...(typeof spec.max_uses === 'number' ? { maxUses: spec.max_uses } : {}),
      ...(allowed === undefined ? {} : { allowedDomains: allowed }),
      ...(blocked === undefined ? {} : { blockedDomains: blocked }),
      ...(isJsonObject(spec.user_location) ? { userLocation: spec.user_location } : {}),
    };
  }
  throw new MessagesDecodeError(`the tool type '${type}' exists only on Anthropic's own API`);
}

function toolChoice(raw: unknown): { toolChoice?: ToolChoice; parallelToolCalls?: boolean } {
  if (!isJsonObject(raw)) return {};
  const serial = raw.disable_parallel_tool_use === true ? { parallelToolCalls: false } : {};
  switch (raw.type) {
    case 'auto':
      return { toolChoice: { type: 'auto' }, ...serial };
    case 'any':
      return { toolChoice: { type: 'required' }, ...serial };
    case 'none':
      return { toolChoice: { type: 'none' } };
    case 'tool':
      return { toolChoice: { type: 'tool', name: str(raw.name) ?? '' }, ...serial };
    default:
      throw new MessagesDecodeError(`tool_choice of type '${String(raw.type)}' is not known`);
  }
}

/** Structured output (`output_config.format`): a JSON schema, as OpenAI's `json_schema`. */
function responseFormat(outputConfig: unknown): { responseFormat?: ResponseFormat } {
  const format = isJsonObject(outputConfig) ? outputConfig.format : undefined;
  if (!isJsonObject(format) || format.type !== 'json_schema' || !isJsonObject(format.schema)) return {};
  return { responseFormat: { type: 'json_schema', name: 'response', schema: format.schema } };
}

/**
 * Sampling settings a translation carries; `top_k`, `thinking`, `output_config.effort`,
 * `context_management` and other Anthropic-only fields have no place in another API (the
 * gateway applies effort from its own options).
 */
export function decodeMessagesRequest(body: JsonObject): ModelRequest {
  const messages = Array.isArray(body.messages) ? body.messages : [];
  const user = isJsonObject(body.metadata) ? str(body.metadata.user_id) : undefined;
  const stop = strings(body.stop_sequences);
  return {
    system: [...system(body.system), ...systemTurns(messages)],
    turns: turns(messages.filter((message) => !isSystemTurn(message))),
    tools: Array.isArray(body.tools) ? body.tools.map(tool) : [],
    ...toolChoice(body.tool_choice),
    ...(typeof body.max_tokens === 'number' ? { maxOutputTokens: body.max_tokens } : {}),
    ...(typeof body.temperature === 'number' ? { temperature: body.temperature } : {}),
    ...(typeof body.top_p === 'number' ? { topP: body.top_p } : {}),
    ...(stop === undefined ? {} : { stop }),
    ...responseFormat(body.output_config),
    stream: body.stream === true,
    ...(user === undefined ? {} : { user }),
  };
}
