/**
 * Where a text may be cut for counting. A tokenizer first splits text into pieces with a regular
 * expression and then merges each piece by byte-pair ranks; merging a piece takes time growing
 * with the square of its length, and gpt-tokenizer's cache of merged pieces scans the holes its
 * own evictions leave once it is full (about its size per new piece). So no text goes to a
 * tokenizer whole when it is long:
 *
 * - A run of more than MAX_PIECE_CHARS white-space or non-white-space characters (one piece for
 *   the tokenizer) is counted in slices of that length: approximate, a few tokens per cut, as
 *   no real word is that long (base64, minified data, a run of one character, pages of blank
 *   lines are). A white-space run leaves its last character to the text after it, where the
 *   tokenizer's piece for the next word would take it.
 * - Other text is counted in chunks of at most MAX_CHUNK_CHARS, cut where no piece can span the
 *   cut: before an ASCII white-space character that follows an ASCII letter or digit. Both
 *   vocabularies' patterns (o200k and Claude's) end a letter or digit piece there and start the
 *   next piece at the white space, and NFKC composes nothing across it, so the chunks' counts
 *   add up to the whole text's exactly. A chunk with no such place (`. ` a million times) is cut
 *   at its limit: approximate by at most a token per cut.
 */

import { isSpace } from './sensitive.ts';

export const MAX_PIECE_CHARS = 256;
export const MAX_CHUNK_CHARS = 16_384;

function isAsciiAlnum(code: number): boolean {
  const lower = code | 0x20;
  return (code >= 0x30 && code <= 0x39) || (lower >= 0x61 && lower <= 0x7a);
}

function isAsciiSpace(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0a || code === 0x0d;
}

/** A low surrogate: no cut may fall before one, or a character would be split in two. */
function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

/** `end` moved past a low surrogate, so the cut keeps a surrogate pair whole. */
function whole(text: string, end: number): number {
  return end < text.length && isLowSurrogate(text.charCodeAt(end)) ? end + 1 : end;
}

/** The last exact cut in (from, limit], or the limit itself when the span has none. */
function cutBefore(text: string, from: number, limit: number): number {
  for (let at = limit; at > from + 1; at -= 1)
    if (isAsciiSpace(text.charCodeAt(at)) && isAsciiAlnum(text.charCodeAt(at - 1))) return at;
  return whole(text, limit);
}

/** Text without long runs, from `from` to `to`, in chunks of at most MAX_CHUNK_CHARS. */
function chunked(text: string, from: number, to: number, visit: (chunk: string) => void): void {
  let start = from;
  while (to - start > MAX_CHUNK_CHARS) {
    const end = cutBefore(text, start, start + MAX_CHUNK_CHARS);
    visit(text.slice(start, end));
    start = end;
  }
  if (to > start) visit(start === 0 && to === text.length ? text : text.slice(start, to));
}

/** A long run, from `from` to `to`, in slices of MAX_PIECE_CHARS. */
function sliced(text: string, from: number, to: number, visit: (chunk: string) => void): void {
  for (let start = from; start < to;) {
    const end = whole(text, Math.min(start + MAX_PIECE_CHARS, to));
    visit(text.slice(start, end));
    start = end;
  }
}

/**
 * Hands `visit` the text in the pieces to count: the whole text when it is short and has no long
 * run, else chunks and slices as above, in order, covering it exactly once. One scan of
 * character codes finds the runs (a regular expression for runs of at least 257 characters is
 * retried at every position of each shorter run).
 */
export function forEachChunk(text: string, visit: (chunk: string) => void): void {
  let from = 0;
  let runStart = 0;
  let runSpace = text.length > 0 && isSpace(text.charCodeAt(0));
  for (let at = 1; at <= text.length; at += 1) {
    const space = at < text.length ? isSpace(text.charCodeAt(at)) : !runSpace;
    if (space === runSpace) continue;
    const end = runSpace && at < text.length ? at - 1 : at;
    if (end - runStart > MAX_PIECE_CHARS) {
      chunked(text, from, runStart, visit);
      sliced(text, runStart, end, visit);
      from = end;
    }
    runStart = at;
    runSpace = space;
  }
  chunked(text, from, text.length, visit);
}
