/** The internal conversation as Converse messages and system blocks. */
import { AdapterRequestError } from '../adapter.ts';
import { isJsonObject, parseJson } from '../json.ts';
import type {
  CacheHint,
  DocumentPart,
  ImagePart,
  Part,
  TextPart,
  ToolResultPart,
  Turn,
} from '../model/content.ts';
import { unpackToolCallId } from '../model/tool-call-id.ts';
import type {
  CachePointBlock,
  ContentBlock,
  ConverseMessage,
  DocumentBlock,
  ImageBlock,
  SystemBlock,
  ToolResultItem,
} from './wire.ts';

const IMAGE_FORMATS: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpeg',
  'image/jpg': 'jpeg',
  'image/gif': 'gif',
  'image/webp': 'webp',
};

const DOCUMENT_FORMATS: Readonly<Record<string, string>> = {
  'application/pdf': 'pdf',
  'text/csv': 'csv',
  'application/msword': 'doc',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document': 'docx',
  'application/vnd.ms-excel': 'xls',
  'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': 'xlsx',
  'text/html': 'html',
  'text/plain': 'txt',
  'text/markdown': 'md',
};

export function cachePoint(hint: CacheHint): CachePointBlock {
  return { cachePoint: { type: 'default', ...(hint.ttl === undefined ? {} : { ttl: hint.ttl }) } };
}

function image(part: ImagePart): ImageBlock {
  // Converse takes only the bytes: it never fetches a URL itself.
  if (part.source.kind === 'url') throw new AdapterRequestError('image URLs cannot be sent to this provider');
  const format = IMAGE_FORMATS[part.source.mediaType.toLowerCase()];
  if (format === undefined)
    throw new AdapterRequestError(`image type ${part.source.mediaType} is not supported`);
  return { image: { format, source: { bytes: part.source.data } } };
}

/** Bedrock allows letters, digits, single spaces, hyphens, parentheses and brackets in names. */
function documentName(name: string | undefined, index: number): string {
  const cleaned = (name ?? '')
    .replace(/[^A-Za-z0-9\s()[\]-]/g, '-')
    .replace(/\s+/g, ' ')
    .trim()
    .slice(0, 200);
  return cleaned === '' ? `document-${index + 1}` : cleaned;
}

function documentBlock(part: DocumentPart, index: number): DocumentBlock {
  if (part.source.kind === 'url')
    throw new AdapterRequestError('document URLs cannot be sent to this provider');
  const format = DOCUMENT_FORMATS[part.source.mediaType.toLowerCase()];
  if (format === undefined)
    throw new AdapterRequestError(`document type ${part.source.mediaType} is not supported`);
  return { document: { format, name: documentName(part.name, index), source: { bytes: part.source.data } } };
}

function toolResultItems(part: ToolResultPart, counter: { documents: number }): ToolResultItem[] {
  const items: ToolResultItem[] = [];
  for (const item of part.content) {
    if (item.type === 'image') items.push(image(item));
    else if (item.type === 'document') items.push(documentBlock(item, counter.documents++));
    // Converse refuses blank text blocks.
    else if (item.text !== '') items.push({ text: item.text });
  }
  return items;
}

/** Tool-call arguments travel as JSON text; Converse wants the object itself. */
function toolInput(args: string): unknown {
  if (args.trim() === '') return {};
  const parsed = parseJson(args);
  if (!isJsonObject(parsed)) throw new AdapterRequestError('tool call arguments must be a JSON object');
  return parsed;
}

function partBlocks(part: Part, counter: { documents: number }): ContentBlock[] {
  switch (part.type) {
    case 'text':
      // Converse refuses blank text blocks.
      return part.text === '' ? [] : [{ text: part.text }];
    case 'image':
      return [image(part)];
    case 'document':
      return [documentBlock(part, counter.documents++)];
    case 'tool_call':
      return [
        {
          toolUse: {
            toolUseId: unpackToolCallId(part.id).id,
            name: part.name,
            input: toolInput(part.arguments),
          },
        },
      ];
    case 'tool_result':
      return [
        {
          toolResult: {
            toolUseId: unpackToolCallId(part.callId).id,
            content: toolResultItems(part, counter),
            ...(part.isError === true ? { status: 'error' as const } : {}),
          },
        },
      ];
    case 'thinking':
      // Claude verifies the signature of thinking sent back; unsigned thinking came from another
      // model and would be refused, so it stays out.
      return part.signature === undefined || part.signature === ''
        ? []
        : [{ reasoningContent: { reasoningText: { text: part.text, signature: part.signature } } }];
    case 'redacted_thinking':
      return [{ reasoningContent: { redactedContent: part.data } }];
    case 'server_tool_call':
    case 'server_tool_result':
      // Anthropic's server tools (web search) do not exist on Bedrock; the text the model wrote
      // from their results is still in the conversation.
      return [];
  }
}

function hintOf(part: Part): CacheHint | undefined {
  return 'cache' in part ? part.cache : undefined;
}

function turnBlocks(turn: Turn, counter: { documents: number }): ContentBlock[] {
  const blocks: ContentBlock[] = [];
  for (const part of turn.content) {
    const converted = partBlocks(part, counter);
    blocks.push(...converted);
    const hint = hintOf(part);
    if (hint !== undefined && converted.length > 0) blocks.push(cachePoint(hint));
  }
  return blocks;
}

/** Converse wants user and assistant turns to alternate: consecutive same-role turns merge. */
export function converseMessages(turns: readonly Turn[]): ConverseMessage[] {
  const messages: ConverseMessage[] = [];
  const counter = { documents: 0 };
  for (const turn of turns) {
    const content = turnBlocks(turn, counter);
    if (content.length === 0) continue;
    const last = messages.at(-1);
    if (last !== undefined && last.role === turn.role) last.content.push(...content);
    else messages.push({ role: turn.role, content });
  }
  return messages;
}

export function systemBlocks(system: readonly TextPart[]): SystemBlock[] {
  const blocks: SystemBlock[] = [];
  for (const part of system) {
    if (part.text === '') continue;
    blocks.push({ text: part.text });
    if (part.cache !== undefined) blocks.push(cachePoint(part.cache));
  }
  return blocks;
}
