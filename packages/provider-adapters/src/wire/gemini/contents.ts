/** The conversation as Gemini `contents`: strictly `user`/`model` turns of typed parts. */
import { AdapterRequestError } from '../../adapter.ts';
import { isJsonObject, type JsonObject, parseJson } from '../../json.ts';
import type {
  DocumentPart,
  ImagePart,
  MediaSource,
  Part,
  TextPart,
  ToolCallPart,
  ToolResultPart,
  Turn,
} from '../../model/content.ts';
import { unpackToolCallId } from '../../model/tool-call-id.ts';
import { isDerivedCallId } from './decode-contents.ts';
import type { GeminiContent, GeminiDialect, GeminiPart } from './types.ts';

/** Extensions whose media type Gemini needs spelled out for a `fileData` URI. */
const MEDIA_TYPES: Readonly<Record<string, string>> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  webp: 'image/webp',
  gif: 'image/gif',
  heic: 'image/heic',
  heif: 'image/heif',
  pdf: 'application/pdf',
  txt: 'text/plain',
};

/**
 * Client ids may still carry a packed signature (see tool-call-id.ts); the upstream id and the
 * signature are compared and sent unpacked.
 */
function callKey(id: string): string {
  return unpackToolCallId(id).id;
}

/** Function names by call id, so a tool result whose client gave no name can still be sent. */
function callNames(turns: readonly Turn[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const turn of turns)
    for (const part of turn.content) if (part.type === 'tool_call') names.set(callKey(part.id), part.name);
  return names;
}

export function encodeContents(turns: readonly Turn[], dialect: GeminiDialect): GeminiContent[] {
  const names = callNames(turns);
  const contents: GeminiContent[] = [];
  for (const turn of turns) {
    const role = turn.role === 'assistant' ? 'model' : 'user';
    const parts = encodeParts(turn.content, names, dialect);
    if (parts.length === 0) continue;
    // Gemini wants turns to alternate; two user turns in a row (a tool result then a question) are one.
    const last = contents.at(-1);
    if (last?.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  }
  return contents;
}

function encodeParts(
  content: readonly Part[],
  names: Map<string, string>,
  dialect: GeminiDialect,
): GeminiPart[] {
  const parts: GeminiPart[] = [];
  // A signature Gemini put on a non-thought part comes back as a text-less thinking part; it
  // goes back on the part that follows it, where Gemini issued it.
  let pending: string | undefined;
  const add = (part: GeminiPart): void => {
    parts.push(
      pending === undefined || part.thoughtSignature ? part : { ...part, thoughtSignature: pending },
    );
    pending = undefined;
  };
  for (const part of content) {
    switch (part.type) {
      case 'text':
        if (part.text !== '' || pending !== undefined) add({ text: part.text });
        break;
      case 'image':
      case 'document':
        add(encodeMedia(part.source, dialect));
        break;
      case 'tool_call':
        add(encodeCall(part));
        break;
      case 'tool_result':
        for (const encoded of encodeResult(part, names, dialect)) add(encoded);
        break;
      case 'thinking':
        if (part.text !== '') add(withSignature({ text: part.text, thought: true }, part.signature));
        else if (part.signature) pending = part.signature;
        break;
      default:
        // Redacted thinking and server tool blocks are another provider's state: Gemini cannot read them.
        break;
    }
  }
  return parts;
}

function withSignature(part: GeminiPart, signature: string | undefined): GeminiPart {
  return signature ? { ...part, thoughtSignature: signature } : part;
}

function encodeCall(part: ToolCallPart): GeminiPart {
  const args = part.arguments.trim() === '' ? {} : parseJson(part.arguments);
  if (!isJsonObject(args))
    throw new AdapterRequestError(`The arguments of tool call '${part.name}' must be a JSON object.`);
  const unpacked = unpackToolCallId(part.id);
  return withSignature(
    { functionCall: { name: part.name, args, ...idOf(unpacked.id) } },
    part.signature ?? unpacked.signature,
  );
}

/** A Gemini client's call that had no id goes back without one, as Google issued it. */
function idOf(id: string): { id?: string } {
  return isDerivedCallId(id) ? {} : { id };
}

function encodeResult(
  part: ToolResultPart,
  names: Map<string, string>,
  dialect: GeminiDialect,
): GeminiPart[] {
  const id = callKey(part.callId);
  const name = part.name ?? names.get(id);
  if (name === undefined)
    throw new AdapterRequestError(
      `The tool result for call '${id}' names no function and no earlier tool call has that id.`,
    );
  const text = part.content
    .filter((item): item is TextPart => item.type === 'text')
    .map((item) => item.text)
    .join('\n');
  // Google's convention: `output` holds the function's result, `error` its failure.
  const response: JsonObject = part.isError ? { error: text } : { output: text };
  const media = part.content
    .filter((item): item is ImagePart | DocumentPart => item.type !== 'text')
    .map((item) => encodeMedia(item.source, dialect));
  return [{ functionResponse: { name, response, ...idOf(id) } }, ...media];
}

const DATA_URL = /^data:([^;,]+);base64,(.*)$/s;

/**
 * Base64 media and `data:` URLs travel inline. Other URLs go as `fileData`, which Google
 * fetches itself: only the schemes the service reads (public https; `gs://` on Vertex). A
 * plain-http or other URL is refused here rather than downloaded by the gateway.
 */
function encodeMedia(source: MediaSource, dialect: GeminiDialect): GeminiPart {
  if (source.kind === 'base64') return { inlineData: { mimeType: source.mediaType, data: source.data } };
  const inline = DATA_URL.exec(source.url);
  if (inline) return { inlineData: { mimeType: inline[1] ?? '', data: inline[2] ?? '' } };
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(source.url)?.[1]?.toLowerCase();
  if (scheme === undefined || !dialect.fileUriSchemes.includes(scheme))
    throw new AdapterRequestError(
      `This provider reads media URLs with the schemes ${dialect.fileUriSchemes.join(', ')} only; send the file as base64 instead.`,
    );
  const extension = /\.([a-z0-9]+)(?:[?#].*)?$/i.exec(source.url)?.[1]?.toLowerCase();
  const mimeType = extension === undefined ? undefined : MEDIA_TYPES[extension];
  return { fileData: mimeType === undefined ? { fileUri: source.url } : { mimeType, fileUri: source.url } };
}
