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

function isWhitespace(code: number): boolean {
  return code === SPACE || code === LF || code === CR || code === TAB;
}

/** True when the text is one JSON document (an object or an array, the only shapes worth it). */
function isJsonDocument(trimmed: string): boolean {
  const first = trimmed[0];
  if (first !== '{' && first !== '[') return false;
  try {
    JSON.parse(trimmed);
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

/** Built by concatenation: V8 keeps the pieces as a rope and copies them once, when read. */
function stripWhitespace(json: string): string {
  let out = '';
  let from = 0;
  let index = 0;
  const length = json.length;
  while (index < length) {
    const code = json.charCodeAt(index);
    if (code === QUOTE) {
      index = stringEnd(json, index);
    } else if (isWhitespace(code)) {
      out += json.slice(from, index);
      while (index < length && isWhitespace(json.charCodeAt(index))) index += 1;
      from = index;
    } else {
      index += 1;
    }
  }
  return out + json.slice(from);
}

/**
 * A JSON document that starts a line of a text (records pasted after an instruction): the index
 * after it and its minified form, when the block from `start` runs over a line end and parses.
 */
export function jsonBlockAt(text: string, start: number): { end: number; minified: string } | undefined {
  const end = balancedEnd(text, start);
  if (end === undefined) return undefined;
  const newline = text.indexOf('\n', start);
  if (newline === -1 || newline >= end) return undefined;
  const block = text.slice(start, end);
  return isJsonDocument(block) ? { end, minified: stripWhitespace(block) } : undefined;
}

/** The index after the bracket that closes the one at `start`, strings skipped. */
function balancedEnd(text: string, start: number): number | undefined {
  let depth = 0;
  for (let index = start; index < text.length; index += 1) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      index += 1;
      while (index < text.length && text.charCodeAt(index) !== QUOTE)
        index += text.charCodeAt(index) === BACKSLASH ? 2 : 1;
    } else if (code === 0x7b || code === 0x5b) depth += 1;
    else if (code === 0x7d || code === 0x5d) {
      depth -= 1;
      if (depth === 0) return index + 1;
    }
  }
  return undefined;
}

/** The minified document, or undefined when the text is not a JSON object or array. */
export function minifyJson(text: string): string | undefined {
  // Looked at before trimming: most texts are not JSON, and trim() copies the whole text.
  let index = 0;
  while (index < text.length && isWhitespace(text.charCodeAt(index))) index += 1;
  const first = text.charCodeAt(index);
  if (first !== 0x7b && first !== 0x5b) return undefined;
  const trimmed = text.trim();
  if (!isJsonDocument(trimmed)) return undefined;
  return stripWhitespace(trimmed);
}
