/**
 * Some upstreams attach opaque state to a tool call that must come back with it on the next
 * turn (Gemini 3's `thoughtSignature`), but client APIs such as OpenAI Chat Completions have no
 * field for it and echo only the call's id. The state therefore rides inside the id the client
 * sees, and is taken out again when the client sends the id back with the tool result.
 *
 * The packed id must stay valid wherever a client may replay the history, and Anthropic's
 * `tool_use.id` allows only `[a-zA-Z0-9_-]`. Gemini's signatures are standard base64 (`+`, `/`,
 * `=`), so the packed part is base64url without padding: `<id>__sig_b<bytes>` when the signature
 * is canonical base64 (same length as the signature), else `<id>__sig_t<its UTF-8 text>`.
 */
import { createHash } from 'node:crypto';
import type { Turn } from './content.ts';

const MARK = '__sig_';
const BYTES = 'b';
const TEXT = 't';
/** Ids issued before the base64url packing; still unpacked so a client's older history replays. */
const LEGACY_MARK = '~sig~';
const BASE64URL = /^[A-Za-z0-9_-]+$/;

export function packToolCallId(id: string, signature: string | undefined): string {
  if (signature === undefined || signature === '') return id;
  const bytes = Buffer.from(signature, 'base64');
  // Only a canonical base64 string decodes and re-encodes to itself; anything else travels as text.
  if (bytes.toString('base64') === signature) return `${id}${MARK}${BYTES}${bytes.toString('base64url')}`;
  return `${id}${MARK}${TEXT}${Buffer.from(signature, 'utf8').toString('base64url')}`;
}

/**
 * The id each tool call of `turns` goes out with (its signature packed in), by the call's own
 * id: a tool result must name its call by exactly that id, or the upstream matches nothing.
 * OpenAI refuses ids longer than `maxLength` (40 for Chat Completions), which a packed
 * signature or a client's long id exceeds: such an id goes as a digest of itself, the same
 * on every turn, and the upstream never shows ids back to the client.
 */
export function wireCallIds(turns: readonly Turn[], maxLength: number): Map<string, string> {
  const ids = new Map<string, string>();
  for (const turn of turns)
    for (const part of turn.content)
      if (part.type === 'tool_call')
        ids.set(part.id, boundedCallId(packToolCallId(part.id, part.signature), maxLength));
  return ids;
}

export function boundedCallId(id: string, maxLength: number): string {
  if (id.length <= maxLength) return id;
  return `call_${createHash('sha256')
    .update(id)
    .digest('base64url')
    .slice(0, Math.max(8, maxLength - 5))}`;
}

export function unpackToolCallId(packed: string): { id: string; signature?: string } {
  const legacy = packed.indexOf(LEGACY_MARK);
  if (legacy !== -1)
    return { id: packed.slice(0, legacy), signature: packed.slice(legacy + LEGACY_MARK.length) };
  const at = packed.indexOf(MARK);
  if (at === -1) return { id: packed };
  const signature = decodeSignature(packed.slice(at + MARK.length));
  // A client's own id that merely contains the mark is not ours: it goes back byte for byte.
  return signature === undefined ? { id: packed } : { id: packed.slice(0, at), signature };
}

function decodeSignature(packed: string): string | undefined {
  const kind = packed.slice(0, 1);
  const body = packed.slice(1);
  if (!BASE64URL.test(body)) return undefined;
  const bytes = Buffer.from(body, 'base64url');
  // Node's decoder skips what it cannot read; only an exact re-encoding proves the id is ours.
  if (bytes.toString('base64url') !== body) return undefined;
  if (kind === BYTES) return bytes.toString('base64');
  if (kind === TEXT) return bytes.toString('utf8');
  return undefined;
}
