/**
 * The whitespace pass of `compact` as one scan over the text: line ends found with indexOf,
 * decisions made from character codes at the line's start and end, span characters found with
 * one forward-moving regular expression, and the output assembled from slices of the input
 * taken only where something is removed. No line array is built; a text with nothing to remove
 * comes back as the same string.
 *
 * Per line, in order: inside a code fence everything is verbatim up to the closing fence; a
 * fence opens on up to three spaces and three or more backticks or tildes; a line is verbatim
 * when it starts (after up to three spaces) with `>` or starts inside an open span, and also
 * when it opens one (an odd count of unescaped `"`, backticks, `“` or `”`). Other lines are
 * prose: trailing white space goes, a run of blank lines becomes one, blank lines at the start
 * and the end of the text go. The first sign of whitespace-sensitive content (sensitive.ts) on
 * any line, code and quotes included, leaves the whole text as sent. Where the text has no
 * fence, a JSON document that starts a line is minified in place.
 */
import { jsonBlockAt } from './json.ts';
import {
  completesOpener,
  isSpace,
  LINE_PLAIN,
  LINE_SENSITIVE,
  type LineKind,
  lineKind,
} from './sensitive.ts';

const SPACE = 0x20;
const BACKTICK = 0x60;
const TILDE = 0x7e;
const GREATER = 0x3e;
const BACKSLASH = 0x5c;

/** Unescaped double quotes (straight or curly) and backticks: odd counts leave a span open. */
const SPAN_CHARS = /["`\u201c\u201d\\]/g;

class Scanner {
  readonly #text: string;
  /**
   * The output so far. Built by concatenation: V8 keeps the pieces as a rope and copies them
   * once, when the string is first read, as join() would.
   */
  #out = '';
  /** The start of the input not yet copied to #out. */
  #from = 0;
  #changed = false;
  /** The character code of the open fence (0: none) and its length. */
  #fence = 0;
  #fenceLength = 0;
  #inSpan = false;
  /** The next span character at or after the last search (-1: none left, -2: not searched). */
  #spanAt = -2;
  #jsonAllowed: boolean | undefined;
  /** How many more characters the searches for JSON blocks may read. */
  #jsonBudget: number;
  /** The end of the last minified JSON block, and whether it leaves a span open or closed. */
  #blockEnd = 0;
  #blockFlips = false;
  /** A line was kept / the last prose line was blank. */
  #emitted = false;
  #blank = false;
  /** Where the output ends if only blank lines follow: #out then, copy start, copy end. */
  #keepOut = '';
  #keepFrom = 0;
  #keepEnd = 0;

  constructor(text: string) {
    this.#text = text;
    this.#jsonBudget = 2 * text.length;
  }

  /** The tidy text; undefined when the text is whitespace-sensitive. */
  run(): string | undefined {
    const text = this.#text;
    let opener: LineKind = LINE_PLAIN;
    for (let start = 0; ;) {
      let end = text.indexOf('\n', start);
      if (end === -1) end = text.length;
      if (opener !== LINE_PLAIN && completesOpener(text, start, opener)) return undefined;
      // Read once and passed on: each charCodeAt costs a check of the string's representation.
      const first = text.charCodeAt(start);
      const last = text.charCodeAt(end - 1);
      opener = lineKind(text, start, end, first, last);
      if (opener === LINE_SENSITIVE) return undefined;
      if (start < this.#blockEnd) {
        // Inside a minified JSON block: only the line it ends on is left to tidy.
        if (end >= this.#blockEnd) this.#classify(this.#blockEnd, end, 0, true, last);
      } else this.#line(start, end, first, last);
      if (end === text.length) return this.#finish();
      start = end + 1;
    }
  }

  /** The line from `start` to `end`, whose first and last characters are `first` and `last`. */
  #line(start: number, end: number, first: number, last: number): void {
    const text = this.#text;
    if (this.#fence !== 0) return this.#fenceLine(start, end, first);
    if ((first === 0x7b || first === 0x5b) && this.#json(start)) return;
    let lead = start;
    if (first === SPACE) while (lead < start + 3 && text.charCodeAt(lead) === SPACE) lead += 1;
    const code = lead === start ? first : text.charCodeAt(lead);
    if ((code === BACKTICK || code === TILDE) && !this.#inSpan) {
      let run = lead;
      while (text.charCodeAt(run) === code) run += 1;
      if (run - lead >= 3) {
        this.#fence = code;
        this.#fenceLength = run - lead;
        return this.#keep(end);
      }
    }
    this.#classify(start, end, code, false, last);
  }

  /**
   * A line from `start` to `end`, verbatim or prose. `block`: the line ends a JSON block minified
   * in place, which `start` follows and whose span characters flip the state or not.
   */
  #classify(start: number, end: number, lead: number, block: boolean, last: number): void {
    const verbatim = this.#inSpan || lead === GREATER;
    let open = this.#inSpan !== (block && this.#blockFlips);
    // Most texts have no span character: after the first search finds none, nothing to scan.
    if (this.#spanAt !== -1) open = this.#spans(start, end, open);
    this.#inSpan = open;
    if (verbatim || open) this.#keep(end);
    else if (end > start && !isSpace(last)) this.#keep(end);
    else this.#prose(start, end, !block);
  }

  #prose(start: number, end: number, whole: boolean): void {
    const text = this.#text;
    let trimmed = end;
    while (trimmed > start && isSpace(text.charCodeAt(trimmed - 1))) trimmed -= 1;
    if (trimmed > start || !whole) {
      this.#keep(trimmed);
      this.#cut(trimmed, end);
    } else if (!this.#emitted || this.#blank) {
      this.#cut(start, Math.min(end + 1, text.length));
      this.#blank = true;
    } else {
      this.#cut(start, end);
      this.#blank = true;
    }
  }

  /** The output so far runs to `end` and stays there if only blank lines follow. */
  #keep(end: number): void {
    this.#emitted = true;
    this.#blank = false;
    this.#keepOut = this.#out;
    this.#keepFrom = this.#from;
    this.#keepEnd = end;
  }

  #cut(start: number, end: number): void {
    if (start >= end) return;
    this.#out += this.#text.slice(this.#from, start);
    this.#from = end;
    this.#changed = true;
  }

  #fenceLine(start: number, end: number, first: number): void {
    // Only a line that starts with white space or the fence character can close the fence.
    if (first !== this.#fence && !isSpace(first)) return this.#keep(end);
    const text = this.#text;
    let index = start;
    while (index < end && isSpace(text.charCodeAt(index))) index += 1;
    const run = index;
    while (text.charCodeAt(index) === this.#fence) index += 1;
    const length = index - run;
    while (index < end && isSpace(text.charCodeAt(index))) index += 1;
    if (length >= this.#fenceLength && index === end) this.#fence = 0;
    this.#keep(end);
  }

  /**
   * A JSON block starting the line at `start` minified; false when there is none. The searches
   * for blocks read at most twice the text's length in all: brackets that never close at many
   * line starts would otherwise make each search read to the end, and the text's time grow with
   * its square (40,000 lines of `{ x` took 20 s). Past the budget, JSON stays as sent.
   */
  #json(start: number): boolean {
    const text = this.#text;
    // Fenced code may hold JSON examples that must stay as written.
    this.#jsonAllowed ??= !text.includes('```') && !text.includes('~~~');
    if (!this.#jsonAllowed || this.#jsonBudget <= 0) return false;
    const { block, read } = jsonBlockAt(text, start, start + this.#jsonBudget);
    this.#jsonBudget -= read - start;
    if (block === undefined) return false;
    this.#out += text.slice(this.#from, start) + block.minified;
    this.#from = block.end;
    this.#changed = true;
    this.#blockEnd = block.end;
    this.#blockFlips = flipsSpan(block.minified);
    return true;
  }

  /** Span state after the characters from `start` to `end`, escapes skipped. */
  #spans(start: number, end: number, open: boolean): boolean {
    let state = open;
    for (let at = this.#nextSpan(start); at !== -1 && at < end;) {
      if (this.#text.charCodeAt(at) === BACKSLASH) at = this.#nextSpan(at + 2);
      else {
        state = !state;
        at = this.#nextSpan(at + 1);
      }
    }
    return state;
  }

  /** Searches only move forward, so one search serves every line before the character it found. */
  #nextSpan(from: number): number {
    if (this.#spanAt === -1 || this.#spanAt >= from) return this.#spanAt;
    SPAN_CHARS.lastIndex = from;
    const found = SPAN_CHARS.exec(this.#text);
    this.#spanAt = found === null ? -1 : found.index;
    return this.#spanAt;
  }

  #finish(): string {
    const text = this.#text;
    if (this.#blank) {
      // Blank lines at the end go, with the line break before them.
      return this.#keepOut + text.slice(this.#keepFrom, this.#keepEnd);
    }
    if (!this.#changed) return text;
    return this.#out + text.slice(this.#from);
  }
}

/**
 * Whether a JSON document flips the span state: its unescaped double quotes pair up (every
 * string opens and closes, and a backslash in a string escapes one character, as the span scan
 * assumes), so only backticks and curly quotes inside its strings count.
 */
function flipsSpan(json: string): boolean {
  let flips = false;
  for (const char of ['`', '\u201c', '\u201d'])
    for (let at = json.indexOf(char); at !== -1; at = json.indexOf(char, at + 1)) flips = !flips;
  return flips;
}

/** The text with its whitespace tidied; undefined when it is whitespace-sensitive. */
export function tidyText(text: string): string | undefined {
  return new Scanner(text).run();
}
