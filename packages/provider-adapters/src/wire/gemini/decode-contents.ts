/**
 * A Gemini client's `contents` -> internal turns. Gemini function calls may come without ids
 * (the Developer API often sends none, and clients echo what they got); every call gets one
 * here, the client's own when it sent one, else one derived from its place in the
 * conversation, so the same history always gets the same ids (prompt caches stay warm). A
 * function response is matched to its call by id when the id names an unanswered call, else
 * to the oldest unanswered call of the same name, as Google matches them.
 */
import { isJsonObject, type JsonObject } from '../../json.ts';
import type {
  DocumentPart,
  ImagePart,
  MediaSource,
  Part,
  TextPart,
  ToolResultPart,
  Turn,
} from '../../model/content.ts';
import { GeminiDecodeError } from './decode-error.ts';

const str = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** The id a call without one gets: its content and part index, in Anthropic's id alphabet. */
export function derivedCallId(content: number, part: number): string {
  return `call_g${content}_${part}`;
}

const DERIVED = /^call_g\d+_\d+$/;

/** Whether an id is one `derivedCallId` made, i.e. the client's call had none (and gets none back). */
export function isDerivedCallId(id: string): boolean {
  return DERIVED.test(id);
}

/** Unanswered calls, by id and by name in the order they were made. */
class OpenCalls {
  readonly #byId = new Map<string, string>();
  readonly #byName = new Map<string, string[]>();

  add(id: string, name: string): void {
    this.#byId.set(id, name);
    const queue = this.#byName.get(name) ?? [];
    queue.push(id);
    this.#byName.set(name, queue);
  }

  /** The call a response answers, which is then answered; undefined when none is open. */
  take(name: string, id: string | undefined): string | undefined {
    const byId = id === undefined ? undefined : this.#byId.get(id);
    const match = byId === name ? id : this.#byName.get(name)?.[0];
    if (match === undefined) return undefined;
    this.#byId.delete(match);
    const queue = this.#byName.get(name) ?? [];
    this.#byName.set(
      name,
      queue.filter((open) => open !== match),
    );
    return match;
  }
}

function mediaPart(source: MediaSource, mimeType: string | undefined): ImagePart | DocumentPart {
  return mimeType?.startsWith('image/') ? { type: 'image', source } : { type: 'document', source };
}

function inlineMedia(raw: JsonObject): ImagePart | DocumentPart {
  const mimeType = str(raw.mimeType);
  const data = str(raw.data);
  if (mimeType === undefined || data === undefined)
    throw new GeminiDecodeError('inlineData needs a mimeType and base64 data.');
  return mediaPart({ kind: 'base64', mediaType: mimeType, data }, mimeType);
}

function fileMedia(raw: JsonObject): ImagePart | DocumentPart {
  const uri = str(raw.fileUri);
  if (uri === undefined) throw new GeminiDecodeError('fileData needs a fileUri.');
  return mediaPart({ kind: 'url', url: uri }, str(raw.mimeType));
}

/**
 * Google's convention: `{output}` is the function's result, `{error}` its failure; anything
 * else is the result as JSON, which every other API takes as text.
 */
function responseContent(response: unknown): { text: string; isError: boolean } {
  if (!isJsonObject(response)) return { text: '', isError: false };
  const keys = Object.keys(response);
  if (keys.length === 1 && typeof response.output === 'string')
    return { text: response.output, isError: false };
  if (keys.length === 1 && typeof response.error === 'string') return { text: response.error, isError: true };
  if (keys.length === 1 && keys[0] === 'error')
    return { text: JSON.stringify(response.error), isError: true };
  return { text: JSON.stringify(response), isError: false };
}

/** Multimodal function responses carry their media as `parts`. */
function responseMedia(parts: unknown): (ImagePart | DocumentPart)[] {
  if (!Array.isArray(parts)) return [];
  return parts.map((raw) => {
    const part = isJsonObject(raw) ? raw : {};
    if (isJsonObject(part.inlineData)) return inlineMedia(part.inlineData);
    if (isJsonObject(part.fileData)) return fileMedia(part.fileData);
    throw new GeminiDecodeError('function response parts can hold only inlineData or fileData.');
  });
}

interface Place {
  readonly content: number;
  readonly part: number;
}

function toolResult(raw: JsonObject, open: OpenCalls, at: Place): ToolResultPart {
  const name = str(raw.name);
  if (name === undefined) throw new GeminiDecodeError('functionResponse needs the function name.');
  const id = str(raw.id) || undefined;
  const callId = open.take(name, id) ?? id ?? derivedCallId(at.content, at.part);
  const { text, isError } = responseContent(raw.response);
  const items: ToolResultPart['content'] = [
    ...(text === '' ? [] : [{ type: 'text' as const, text }]),
    ...responseMedia(raw.parts),
  ];
  return { type: 'tool_result', callId, name, content: items, ...(isError ? { isError: true } : {}) };
}

const UNSUPPORTED_PARTS = ['executableCode', 'codeExecutionResult', 'toolCall', 'toolResponse'];

/**
 * One part as internal parts. A signature on a part other than a thought or a function call
 * travels as a text-less thinking part just before it, as the upstream codec reads it.
 */
function partsOf(raw: JsonObject, model: boolean, open: OpenCalls, at: Place): Part[] {
  const signature = str(raw.thoughtSignature) || undefined;
  const call = raw.functionCall;
  if (isJsonObject(call)) {
    const name = str(call.name);
    if (name === undefined) throw new GeminiDecodeError('functionCall needs the function name.');
    const id = str(call.id) || derivedCallId(at.content, at.part);
    open.add(id, name);
    const args = isJsonObject(call.args) ? call.args : {};
    const sig = signature === undefined ? {} : { signature };
    return [{ type: 'tool_call', id, name, arguments: JSON.stringify(args), ...sig }];
  }
  const text = str(raw.text);
  if (text !== undefined && model && raw.thought === true)
    return [{ type: 'thinking', text, ...(signature === undefined ? {} : { signature }) }];
  const lead: Part[] = signature !== undefined && model ? [{ type: 'thinking', text: '', signature }] : [];
  if (text !== undefined) return [...lead, ...(text === '' ? [] : [{ type: 'text' as const, text }])];
  if (isJsonObject(raw.functionResponse)) return [...lead, toolResult(raw.functionResponse, open, at)];
  if (isJsonObject(raw.inlineData)) return [...lead, inlineMedia(raw.inlineData)];
  if (isJsonObject(raw.fileData)) return [...lead, fileMedia(raw.fileData)];
  const kind = UNSUPPORTED_PARTS.find((key) => raw[key] !== undefined);
  if (kind !== undefined)
    throw new GeminiDecodeError(`${kind} parts exist only on Gemini and cannot be sent to this provider.`);
  return lead;
}

function roleOf(content: JsonObject): Turn['role'] {
  const { role } = content;
  // `function` is the older API's role for function responses; no role is a user turn.
  if (role === undefined || role === 'user' || role === 'function') return 'user';
  if (role === 'model') return 'assistant';
  throw new GeminiDecodeError(`content role '${String(role)}' is not one of user and model.`);
}

export function decodeContents(contents: unknown): Turn[] {
  if (contents === undefined) return [];
  if (!Array.isArray(contents)) throw new GeminiDecodeError('contents must be a list of contents.');
  const open = new OpenCalls();
  return contents.map((raw, index) => {
    const content = isJsonObject(raw) ? raw : {};
    const role = roleOf(content);
    const parts = Array.isArray(content.parts) ? content.parts : [];
    const decoded = parts.flatMap((part, at) =>
      partsOf(isJsonObject(part) ? part : {}, role === 'assistant', open, { content: index, part: at }),
    );
    return { role, content: joinThoughts(decoded) };
  });
}

/**
 * A streamed thought arrives in pieces, its signature on the last: consecutive thought parts
 * are one thought again, as another provider (Anthropic) signed it whole.
 */
function joinThoughts(parts: readonly Part[]): Part[] {
  const out: Part[] = [];
  for (const part of parts) {
    const last = out.at(-1);
    if (
      part.type === 'thinking' &&
      last?.type === 'thinking' &&
      last.signature === undefined &&
      last.text !== ''
    )
      out[out.length - 1] = { ...part, text: last.text + part.text };
    else out.push(part);
  }
  return out;
}

/** `systemInstruction`: a content of text parts (or, as SDKs allow, a string). */
export function decodeSystem(raw: unknown): TextPart[] {
  if (raw === undefined || raw === null) return [];
  if (typeof raw === 'string') return raw === '' ? [] : [{ type: 'text', text: raw }];
  const parts = isJsonObject(raw) && Array.isArray(raw.parts) ? raw.parts : undefined;
  if (parts === undefined) throw new GeminiDecodeError('systemInstruction must be a content of text parts.');
  return parts.flatMap((part): TextPart[] => {
    const text = isJsonObject(part) ? str(part.text) : undefined;
    if (text === undefined) throw new GeminiDecodeError('systemInstruction can hold only text parts.');
    return text === '' ? [] : [{ type: 'text', text }];
  });
}
