/**
 * JSON minification that never re-serialises: whitespace between tokens is dropped and every
 * token (strings, numbers, literals) is copied byte for byte. `JSON.stringify(JSON.parse(x))`
 * would also minify, but it rounds integers past 2^53, rewrites `1.0` and `1e3`, keeps only
 * the last of duplicate keys and unescapes strings: all changes to what the model reads.
 *
 * The text is validated in the same pass, by the grammar of RFC 8259 as JSON.parse applies it,
 * over its UTF-8 bytes, with the output written over the input. JSON.parse built the whole
 * object graph only for it to be dropped, and the stripped text was a rope of slices: together
 * they were half of `compact`'s time (bench/compression/compact-speed.ts). json.test.ts holds
 * this module to JSON.parse's verdict on thousands of generated and mutated documents.
 */
import { Buffer } from 'node:buffer';

const SPACE = 0x20;
const TAB = 0x09;
const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;
/** `}` and `]` are two code points after `{` and `[`. */
const TO_CLOSE = 2;

/** What the grammar expects next. */
const VALUE = 0;
const KEY = 1;
const AFTER = 2;
type Expect = 0 | 1 | 2;

function isWhitespace(code: number): boolean {
  return code === SPACE || code === LF || code === CR || code === TAB;
}

function isDigit(code: number | undefined): boolean {
  return code !== undefined && code >= 0x30 && code <= 0x39;
}

function isHex(code: number | undefined): boolean {
  if (code === undefined) return false;
  const lower = code | 0x20;
  return (code >= 0x30 && code <= 0x39) || (lower >= 0x61 && lower <= 0x66);
}

/** `"` `\` `/` `b` `f` `n` `r` `t`: the escapes with one character after the backslash. */
function isShortEscape(code: number | undefined): boolean {
  return (
    code === QUOTE ||
    code === BACKSLASH ||
    code === 0x2f ||
    code === 0x62 ||
    code === 0x66 ||
    code === 0x6e ||
    code === 0x72 ||
    code === 0x74
  );
}

const LITERALS = [Buffer.from('true'), Buffer.from('false'), Buffer.from('null')];

/** One JSON value's UTF-8 bytes, validated and minified in place. */
class Minifier {
  readonly #bytes: Buffer;
  /** Read and write positions: the output overwrites the input, which it never outruns. */
  #at = 0;
  #to = 0;
  /** The open brackets, innermost last. */
  readonly #open: number[] = [];

  constructor(bytes: Buffer) {
    this.#bytes = bytes;
  }

  /** The minified text when the bytes are exactly one JSON value. */
  result(): string | undefined {
    if (!this.#read() || this.#at !== this.#bytes.length) return undefined;
    return this.#bytes.toString('utf8', 0, this.#to);
  }

  #read(): boolean {
    let expect: Expect = VALUE;
    for (;;) {
      if (expect === AFTER && this.#open.length === 0) return true;
      this.#space();
      const code = this.#bytes[this.#at];
      if (code === undefined) return false;
      const next: Expect | undefined =
        expect === VALUE ? this.#value(code) : expect === KEY ? this.#key(code) : this.#after(code);
      if (next === undefined) return false;
      expect = next;
    }
  }

  #space(): void {
    const bytes = this.#bytes;
    let at = this.#at;
    while (at < bytes.length && isWhitespace(bytes[at] as number)) at += 1;
    this.#at = at;
  }

  /** Copies `count` bytes from the read position to the write position. */
  #copy(count: number): void {
    const bytes = this.#bytes;
    let at = this.#at;
    let to = this.#to;
    for (const end = at + count; at < end; at += 1, to += 1) bytes[to] = bytes[at] as number;
    this.#at = at;
    this.#to = to;
  }

  #value(code: number): Expect | undefined {
    if (code === OPEN_BRACE || code === OPEN_BRACKET) return this.#container(code);
    if (code === QUOTE) return this.#string() ? AFTER : undefined;
    if (code === MINUS || isDigit(code)) return this.#number() ? AFTER : undefined;
    for (const literal of LITERALS)
      if (literal[0] === code) {
        for (let index = 1; index < literal.length; index += 1)
          if (this.#bytes[this.#at + index] !== literal[index]) return undefined;
        this.#copy(literal.length);
        return AFTER;
      }
    return undefined;
  }

  #container(code: number): Expect {
    this.#copy(1);
    this.#space();
    if (this.#bytes[this.#at] === code + TO_CLOSE) {
      this.#copy(1);
      return AFTER;
    }
    this.#open.push(code);
    return code === OPEN_BRACE ? KEY : VALUE;
  }

  #key(code: number): Expect | undefined {
    if (code !== QUOTE || !this.#string()) return undefined;
    this.#space();
    if (this.#bytes[this.#at] !== COLON) return undefined;
    this.#copy(1);
    return VALUE;
  }

  #after(code: number): Expect | undefined {
    const open = this.#open[this.#open.length - 1] as number;
    if (code === COMMA) {
      this.#copy(1);
      return open === OPEN_BRACE ? KEY : VALUE;
    }
    if (code !== open + TO_CLOSE) return undefined;
    this.#copy(1);
    this.#open.pop();
    return AFTER;
  }

  /**
   * The string at the read position, copied: no raw control characters (bytes under 0x20; UTF-8
   * puts none inside a multi-byte character) and only the escapes JSON has.
   */
  #string(): boolean {
    const bytes = this.#bytes;
    let at = this.#at + 1;
    let to = this.#to;
    bytes[to++] = QUOTE;
    for (;;) {
      const code = bytes[at];
      if (code === undefined || code < SPACE) return false;
      if (code === QUOTE) break;
      if (code === BACKSLASH) {
        const length = this.#escapeLength(at);
        if (length === 0) return false;
        for (const end = at + length; at < end; at += 1) bytes[to++] = bytes[at] as number;
      } else {
        bytes[to++] = code;
        at += 1;
      }
    }
    bytes[to++] = QUOTE;
    this.#at = at + 1;
    this.#to = to;
    return true;
  }

  /** The length of the escape at `slash` (`\n`, `\u00e9`...); 0 when it is not one JSON has. */
  #escapeLength(slash: number): number {
    const bytes = this.#bytes;
    if (isShortEscape(bytes[slash + 1])) return 2;
    if (bytes[slash + 1] !== 0x75) return 0;
    for (let index = slash + 2; index < slash + 6; index += 1) if (!isHex(bytes[index])) return 0;
    return 6;
  }

  /** `-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?` */
  #number(): boolean {
    const bytes = this.#bytes;
    let at = this.#at;
    if (bytes[at] === MINUS) at += 1;
    if (!isDigit(bytes[at])) return false;
    if (bytes[at] === 0x30) at += 1;
    else while (isDigit(bytes[at])) at += 1;
    if (bytes[at] === DOT) {
      if (!isDigit(bytes[at + 1])) return false;
      at += 1;
      while (isDigit(bytes[at])) at += 1;
    }
    if (((bytes[at] ?? 0) | 0x20) === 0x65) {
      at += 1;
      if (bytes[at] === PLUS || bytes[at] === MINUS) at += 1;
      if (!isDigit(bytes[at])) return false;
      while (isDigit(bytes[at])) at += 1;
    }
    this.#copy(at - this.#at);
    return true;
  }
}

/**
 * The minified form of `text` when it is one JSON value. A text with a lone surrogate has no
 * UTF-8 form: it is not minified (the caller tidies it as prose).
 */
function minifiedText(text: string): string | undefined {
  if (!text.isWellFormed()) return undefined;
  return new Minifier(Buffer.from(text, 'utf8')).result();
}

/**
 * The bracketed block opening at `start`, by bracket depth outside strings: `end`, the index
 * after its closing bracket (-1 when it does not close before `limit`), and `read`, the furthest
 * index the search looked at. Strings are skipped with indexOf: a quote closes one when an even
 * number of backslashes precedes it.
 */
function blockEnd(text: string, start: number, limit: number): { end: number; read: number } {
  const stop = Math.min(limit, text.length);
  let depth = 0;
  let index = start;
  while (index < stop) {
    const code = text.charCodeAt(index);
    if (code === QUOTE) {
      let quote = text.indexOf('"', index + 1);
      for (; quote !== -1; quote = text.indexOf('"', quote + 1)) {
        let slashes = 0;
        while (text.charCodeAt(quote - 1 - slashes) === BACKSLASH) slashes += 1;
        if (slashes % 2 === 0) break;
      }
      if (quote === -1) return { end: -1, read: text.length };
      index = quote + 1;
      continue;
    }
    index += 1;
    if (code === OPEN_BRACE || code === OPEN_BRACKET) depth += 1;
    else if ((code === CLOSE_BRACE || code === CLOSE_BRACKET) && --depth === 0)
      return { end: index, read: index };
  }
  return { end: -1, read: index };
}

function isOpening(code: number): boolean {
  return code === OPEN_BRACE || code === OPEN_BRACKET;
}

/** What a search for a JSON block found, and how far it read (for the caller's budget). */
export interface BlockSearch {
  readonly block: { readonly end: number; readonly minified: string } | undefined;
  readonly read: number;
}

/**
 * A JSON document that starts a line of a text (records pasted after an instruction): the index
 * after it and its minified form, when the block from `start` runs over a line end and is JSON.
 * The search for its end reads no further than `limit` (a string it enters may take it past).
 */
export function jsonBlockAt(text: string, start: number, limit = text.length): BlockSearch {
  const newline = text.indexOf('\n', start);
  if (newline === -1 || !isOpening(text.charCodeAt(start))) return { block: undefined, read: start };
  // The end first, so that a line of JSON Lines costs its own length, not the rest of the text.
  const { end, read } = blockEnd(text, start, limit);
  if (end === -1 || newline >= end) return { block: undefined, read };
  const minified = minifiedText(text.slice(start, end));
  return { block: minified === undefined ? undefined : { end, minified }, read };
}

/** The minified document, or undefined when the text is not a JSON object or array. */
export function minifyJson(text: string): string | undefined {
  // Looked at before trimming: most texts are not JSON.
  let index = 0;
  while (index < text.length && isWhitespace(text.charCodeAt(index))) index += 1;
  if (!isOpening(text.charCodeAt(index))) return undefined;
  return minifiedText(text.trim());
}
