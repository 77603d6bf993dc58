/**
 * Some upstreams attach opaque state to a tool call that must come back with it on the next
 * turn (Gemini 3's `thoughtSignature`), but client APIs such as OpenAI Chat Completions have no
 * field for it and echo only the call's id. The state therefore rides inside the id the client
 * sees, and is taken out again when the client sends the id back with the tool result.
 */
const MARK = '~sig~';

export function packToolCallId(id: string, signature: string | undefined): string {
  return signature === undefined || signature === '' ? id : `${id}${MARK}${signature}`;
}

export function unpackToolCallId(packed: string): { id: string; signature?: string } {
  const at = packed.indexOf(MARK);
  if (at === -1) return { id: packed };
  return { id: packed.slice(0, at), signature: packed.slice(at + MARK.length) };
}
