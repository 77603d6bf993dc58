/** The conversation (system, turns, tools) of a ModelRequest in Messages form. */
import { AdapterRequestError } from '../../adapter.ts';
import { isJsonObject, type JsonObject, parseJson } from '../../json.ts';
import type {
  CacheHint,
  DocumentPart,
  ImagePart,
  MediaSource,
  Part,
  TextPart,
  Turn,
} from '../../model/content.ts';
import type { OfferProfile } from '../../model/profile.ts';
import type { Tool, ToolChoice } from '../../model/request.ts';
import { unpackToolCallId } from '../../model/tool-call-id.ts';
import type {
  CacheControl,
  ContentBlock,
  DocumentBlock,
  FunctionToolWire,
  ImageBlock,
  MediaSourceWire,
  MessageParam,
  TextBlock,
  ToolChoiceWire,
  WebSearchToolWire,
} from './types.ts';

function cacheControl(hint: CacheHint | undefined): { cache_control?: CacheControl } {
  if (hint === undefined) return {};
  return {
    cache_control: hint.ttl === undefined ? { type: 'ephemeral' } : { type: 'ephemeral', ttl: hint.ttl },
  };
}

/**
 * Citations are not sent back: Anthropic's citation params need the `encrypted_index` it
 * issued, which the internal model does not keep, and a citation without it is refused.
 */
export function textBlock(part: TextPart): TextBlock {
  return { type: 'text', text: part.text, ...cacheControl(part.cache) };
}

function mediaSource(source: MediaSource): MediaSourceWire {
  if (source.kind === 'url') return { type: 'url', url: source.url };
  return { type: 'base64', media_type: source.mediaType, data: source.data };
}

function imageBlock(part: ImagePart): ImageBlock {
  return { type: 'image', source: mediaSource(part.source), ...cacheControl(part.cache) };
}

/** Plain-text documents have a source type of their own; base64 is for PDFs. */
function documentBlock(part: DocumentPart): DocumentBlock {
  const { source } = part;
  const wire: MediaSourceWire =
    source.kind === 'base64' && source.mediaType.startsWith('text/')
      ? { type: 'text', media_type: 'text/plain', data: Buffer.from(source.data, 'base64').toString('utf8') }
      : mediaSource(source);
  return {
    type: 'document',
    source: wire,
    ...(part.name === undefined ? {} : { title: part.name }),
    ...cacheControl(part.cache),
  };
}

/** Anthropic wants the arguments as an object; an OpenAI client may send "" for none. */
function toolInput(args: string): JsonObject {
  if (args.trim() === '') return {};
  const parsed = parseJson(args);
  if (!isJsonObject(parsed)) throw new AdapterRequestError('tool call arguments must be a JSON object.');
  return parsed;
}

/**
 * Tool-call ids from another upstream may carry packed provider state (see tool-call-id.ts);
 * Anthropic allows only [a-zA-Z0-9_-] in ids, so the state is stripped on both sides of the pair.
 */
function callId(id: string): string {
  return unpackToolCallId(id).id;
}

function partBlock(part: Part): ContentBlock | undefined {
  switch (part.type) {
    case 'text':
      return textBlock(part);
    case 'image':
      return imageBlock(part);
    case 'document':
      return documentBlock(part);
    case 'tool_call':
      return { type: 'tool_use', id: callId(part.id), name: part.name, input: toolInput(part.arguments) };
    case 'tool_result':
      return {
        type: 'tool_result',
        tool_use_id: callId(part.callId),
        content: part.content.map((item) =>
          item.type === 'text'
            ? textBlock(item)
            : item.type === 'image'
              ? imageBlock(item)
              : documentBlock(item),
        ),
        ...(part.isError === true ? { is_error: true } : {}),
        ...cacheControl(part.cache),
      };
    case 'thinking':
      // Anthropic verifies the signature of every thinking block it gets back; thinking from
      // another provider has none and would be refused, so it is not sent.
      return part.signature === undefined || part.signature === ''
        ? undefined
        : { type: 'thinking', thinking: part.text, signature: part.signature };
    case 'redacted_thinking':
      return { type: 'redacted_thinking', data: part.data };
    case 'server_tool_call':
    case 'server_tool_result':
      return part.payload;
  }
}

/**
 * Turns as Messages: consecutive turns of one role are merged because Anthropic requires the
 * roles to alternate, and in a user turn the tool results come first, as Anthropic requires.
 */
export function encodeTurns(turns: readonly Turn[]): MessageParam[] {
  const messages: MessageParam[] = [];
  for (const turn of turns) {
    const blocks: ContentBlock[] = [];
    for (const part of turn.content) {
      const block = partBlock(part);
      if (block !== undefined) blocks.push(block);
    }
    if (blocks.length === 0) continue;
    const last = messages.at(-1);
    if (last?.role === turn.role) last.content.push(...blocks);
    else messages.push({ role: turn.role, content: blocks });
  }
  return messages.map((message) => (message.role === 'user' ? resultsFirst(message) : message));
}

function resultsFirst(message: MessageParam): MessageParam {
  const results: ContentBlock[] = [];
  const others: ContentBlock[] = [];
  for (const block of message.content) (block.type === 'tool_result' ? results : others).push(block);
  return { role: message.role, content: [...results, ...others] };
}

/** OpenAI nests the location (`{type: "approximate", approximate: {...}}`); Anthropic does not. */
function userLocation(location: JsonObject): JsonObject {
  return isJsonObject(location.approximate) ? { type: 'approximate', ...location.approximate } : location;
}

export function encodeTools(
  tools: readonly Tool[],
  offer: OfferProfile,
): (FunctionToolWire | WebSearchToolWire)[] {
  return tools.map((tool) => {
    if (tool.type === 'function') {
      return {
        name: tool.name,
        ...(tool.description === undefined ? {} : { description: tool.description }),
        input_schema: tool.parameters,
        ...(tool.strict === undefined ? {} : { strict: tool.strict }),
        ...cacheControl(tool.cache),
      };
    }
    if (offer.webSearchTool === undefined)
      throw new AdapterRequestError('this model has no web search tool.');
    if (tool.allowedDomains !== undefined && tool.blockedDomains !== undefined)
      throw new AdapterRequestError('web search takes allowed domains or blocked domains, not both.');
    return {
      type: offer.webSearchTool,
      name: 'web_search',
      ...(tool.maxUses === undefined ? {} : { max_uses: tool.maxUses }),
      ...(tool.allowedDomains === undefined ? {} : { allowed_domains: tool.allowedDomains }),
      ...(tool.blockedDomains === undefined ? {} : { blocked_domains: tool.blockedDomains }),
      ...(tool.userLocation === undefined ? {} : { user_location: userLocation(tool.userLocation) }),
    };
  });
}

export function encodeToolChoice(
  choice: ToolChoice | undefined,
  parallelToolCalls: boolean | undefined,
): ToolChoiceWire | undefined {
  const serial = parallelToolCalls === false ? { disable_parallel_tool_use: true } : {};
  switch (choice?.type) {
    case undefined:
      return parallelToolCalls === false ? { type: 'auto', ...serial } : undefined;
    case 'none':
      return { type: 'none' };
    case 'auto':
      return { type: 'auto', ...serial };
    case 'required':
      return { type: 'any', ...serial };
    case 'tool':
      return { type: 'tool', name: choice.name, ...serial };
  }
}
