/**
 * JSON minification that never re-serialises: whitespace between tokens is dropped and every
 * token (strings, numbers, literals) is copied byte for byte. `JSON.stringify(JSON.parse(x))`
 * would also minify, but it rounds integers past 2^53, rewrites `1.0` and `1e3`, keeps only
 * the last of duplicate keys and unescapes strings: all changes to what the model reads.
 */

const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

function isWhitespace(code: number): boolean {
  return code === SPACE || code === LF || code === CR || code === TAB;
}

/** True when JSON.parse accepts the text. */
function parses(json: string): boolean {
  try {
    JSON.parse(json);
    return true;
  } catch {
    return false;
  }
}

/**
 * The index after the string that opens at `open`, copied whole: its closing quote is the next
 * one preceded by an even number of backslashes (found with indexOf, not character by character).
 */
function stringEnd(json: string, open: number): number {
  for (let quote = json.indexOf('"', open + 1); quote !== -1; quote = json.indexOf('"', quote + 1)) {
    let slashes = 0;
    while (json.charCodeAt(quote - 1 - slashes) === BACKSLASH) slashes += 1;
    if (slashes % 2 === 0) return quote + 1;
  }
  return json.length;
}

/**
 * The bracketed block opening at `start`, up to the bracket that closes it, with the whitespace
 * outside its strings dropped: the end found and the text stripped in one pass. Undefined when
 * the brackets never close.
 */
function stripBlock(text: string, start: number): { end: number; stripped: string } | undefined {
  // Built by concatenation: V8 keeps the pieces as a rope and copies them once, when read.
  let out = '';
  let from = start;
  let depth = 0;
  const length = text.length;
  for (let index = start; index < length;) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      index = stringEnd(text, index);
    } else if (isWhitespace(code)) {
      out += text.slice(from, index);
      while (index < length && isWhitespace(text.charCodeAt(index))) index += 1;
      from = index;
    } else {
      index += 1;
      if (code === OPEN_BRACE || code === OPEN_BRACKET) depth += 1;
      else if ((code === CLOSE_BRACE || code === CLOSE_BRACKET) && --depth === 0)
        return { end: index, stripped: out + text.slice(from, index) };
    }
  }
  return undefined;
}

function isOpening(code: number): boolean {
  return code === OPEN_BRACE || code === OPEN_BRACKET;
}

/**
 * A JSON document that starts a line of a text (records pasted after an instruction): the index
 * after it and its minified form, when the block from `start` runs over a line end and parses.
 */
export function jsonBlockAt(text: string, start: number): { end: number; minified: string } | undefined {
  const newline = text.indexOf('\n', start);
  if (newline === -1 || !isOpening(text.charCodeAt(start))) return undefined;
  const block = stripBlock(text, start);
  // Validated as sent, not stripped: `[1 2]` would strip to `[12]`, and a flat slice parses
  // faster than the stripped text, which V8 holds as a rope of pieces until it is read.
  if (block === undefined || newline >= block.end || !parses(text.slice(start, block.end))) return undefined;
  return { end: block.end, minified: block.stripped };
}

/** The minified document, or undefined when the text is not a JSON object or array. */
export function minifyJson(text: string): string | undefined {
  // Looked at before trimming: most texts are not JSON, and trim() copies the whole text.
  let index = 0;
  while (index < text.length && isWhitespace(text.charCodeAt(index))) index += 1;
  if (!isOpening(text.charCodeAt(index))) return undefined;
  const trimmed = text.trim();
  // Parsed first: on text that is not JSON it stops at the first error, the strip would not.
  return parses(trimmed) ? stripBlock(trimmed, 0)?.stripped : undefined;
}
