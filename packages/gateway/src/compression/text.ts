/**
 * `compact` on one text: JSON documents minified; otherwise trailing whitespace dropped and runs
 * of blank lines collapsed to one, outside everything whose bytes may matter: fenced code
 * blocks, block quotes, quoted or backticked spans that run over a line end, and whole texts
 * that look indentation- or whitespace-sensitive (diffs, Makefiles, YAML, Python), where a
 * trailing space or a blank line can be content.
 */
import { minifyEmbeddedJson, minifyJson } from './json.ts';

const FENCE_OPEN = /^ {0,3}(`{3,}|~{3,})/;

/**
 * One pass over the text for every sign of whitespace-sensitive content, each anchored at a line
 * start: unified diffs (hunk line counts include blank and whitespace-only lines), Makefile
 * recipes and tab-separated data (a leading tab), YAML (documents, block scalars, nested
 * mappings) and Python (a block opener followed by an indented line).
 */
const SENSITIVE_LINE = [
  'diff --git ',
  '--- \\S',
  '\\+\\+\\+ \\S',
  '@@ -\\d',
  '\\t',
  '---[ \\t]*$',
  '[ \\t]*[\\w"\'.-]+:[ \\t]*[|>][+-]?[ \\t]*$',
  '[\\w.-]+:[ \\t]*\\n[ \\t]+[\\w"\'.-]+:',
  '[ \\t]*(?:def|class|async def|if|for|while|with|try|elif|else|except)\\b[^\\n]*:[ \\t]*\\n[ \\t]+\\S',
]
  .map((pattern) => `(?:${pattern})`)
  .join('|')
  // `$` as in multiline mode: before any line terminator or at the end.
  .replaceAll('$', '(?=[\\n\\r\\u2028\\u2029]|$)');

/**
 * A line start is the text's start or a line terminator (what `^` matches in multiline mode; no
 * alternative can begin with one, so consuming it matches the same texts). Two expressions
 * rather than one multiline `^`: one leading a character class lets V8 skip to candidate
 * positions instead of trying the alternation at every character.
 */
const SENSITIVE_AT_START = new RegExp(`^(?:${SENSITIVE_LINE})`);
const SENSITIVE_AFTER_BREAK = new RegExp(`[\\n\\r\\u2028\\u2029](?:${SENSITIVE_LINE})`);

/** Diffs, Makefiles, YAML and Python outside code fences: left exactly as sent. */
export function isWhitespaceSensitive(text: string): boolean {
  return SENSITIVE_AT_START.test(text) || SENSITIVE_AFTER_BREAK.test(text);
}

/** Unescaped double quotes (straight or curly) and backticks: odd counts leave a span open. */
const SPAN_CHARS = /["`\u201c\u201d\\]/;

function opensSpan(line: string, open: boolean): boolean {
  if (!SPAN_CHARS.test(line)) return open;
  let state = open;
  for (let index = 0; index < line.length; index += 1) {
    const char = line[index];
    if (char === '\\') index += 1;
    else if (char === '"' || char === '`' || char === '\u201c' || char === '\u201d') state = !state;
  }
  return state;
}

const BACKTICK = 0x60;
const TILDE = 0x7e;
const GREATER = 0x3e;
const LINE_FEED = 0x0a;

/** The first character after up to three spaces (where fences and quotes begin). */
function firstCode(line: string): number {
  let index = 0;
  while (index < 3 && line.charCodeAt(index) === 0x20) index += 1;
  return line.charCodeAt(index);
}

/**
 * Text without fences, quotes or block quotes: tidied without a line loop. A block quote starts
 * a line (after any line terminator, as `^` in multiline mode): a leading literal lets V8 scan
 * for it instead of trying the alternation at every position.
 */
const PLAIN = /["`~\u201c\u201d\\]|[\n\r\u2028\u2029][ \t]*>/;
const QUOTE_FIRST = /^[ \t]*>/;

function isPlain(text: string): boolean {
  return !PLAIN.test(text) && !QUOTE_FIRST.test(text);
}

function isBlank(code: number): boolean {
  return code === 0x20 || code === 0x09;
}

/**
 * Spaces and tabs before each line feed removed: found from the line feeds (indexOf) rather than
 * from every space in the prose, which is where a regular expression would start its attempts.
 */
function dropTrailingBlanks(text: string): string {
  const pieces: string[] = [];
  let from = 0;
  for (let feed = text.indexOf('\n'); feed !== -1; feed = text.indexOf('\n', feed + 1)) {
    let end = feed;
    while (end > from && isBlank(text.charCodeAt(end - 1))) end -= 1;
    if (end === feed) continue;
    pieces.push(text.slice(from, end));
    from = feed;
  }
  if (from === 0) return text;
  pieces.push(text.slice(from));
  return pieces.join('');
}

function tidyPlain(text: string): string {
  // trimEnd() strips exactly what /\s+$/ matches (WhiteSpace and LineTerminator), in one pass.
  return dropTrailingBlanks(text)
    .replace(/\n{3,}/g, '\n\n')
    .trimEnd();
}

interface Segment {
  readonly lines: string[];
  readonly verbatim: boolean;
}

/** Splits lines into verbatim runs (fences, quotes, open spans) and prose runs. */
function segments(lines: readonly string[]): Segment[] {
  const out: Segment[] = [];
  let fence: string | undefined;
  let inSpan = false;
  const push = (line: string, verbatim: boolean) => {
    const last = out.at(-1);
    if (last && last.verbatim === verbatim) last.lines.push(line);
    else out.push({ lines: [line], verbatim });
  };
  for (const line of lines) {
    const lead = firstCode(line);
    if (fence !== undefined) {
      push(line, true);
      if (line.trimStart().startsWith(fence) && line.trim().replaceAll(fence[0] as string, '') === '')
        fence = undefined;
      continue;
    }
    const opened = lead === BACKTICK || lead === TILDE ? FENCE_OPEN.exec(line) : null;
    if (opened && !inSpan) {
      fence = opened[1];
      push(line, true);
      continue;
    }
    const verbatim = inSpan || lead === GREATER;
    inSpan = opensSpan(line, inSpan);
    // A line that opens a span keeps its trailing whitespace: it is inside the span.
    push(line, verbatim || inSpan);
  }
  return out;
}

/** `afterVerbatim`: one blank line separating the run from a code block before it stays. */
function tidyProse(lines: readonly string[], afterVerbatim: boolean): string[] {
  const out: string[] = [];
  let blank = false;
  for (const line of lines) {
    const trimmed = line.trimEnd();
    if (trimmed === '') {
      if (!blank && (out.length > 0 || afterVerbatim)) out.push('');
      blank = true;
    } else {
      out.push(trimmed);
      blank = false;
    }
  }
  return out;
}

function tidyWhitespace(text: string): string {
  if (isPlain(text)) return tidyPlain(text);
  const parts = segments(text.split('\n'));
  const out: string[] = [];
  for (const [index, part] of parts.entries()) {
    if (part.verbatim) {
      out.push(...part.lines);
      continue;
    }
    const lines = tidyProse(part.lines, index > 0);
    // A run of blank lines at the very end of the text goes; one before a verbatim run stays.
    if (index === parts.length - 1) while (lines.at(-1) === '') lines.pop();
    out.push(...lines);
  }
  return out.join('\n');
}

/** A line that starts with `{` or `[`: maybe JSON pasted into prose. */
const EMBEDDED_JSON = /\n[{[]/;

/**
 * Something to remove: trailing spaces or tabs on a line, two or more blank lines, or blank lines
 * at the end (what /[ \t]\n|\n[ \t]*\n[ \t]*\n|[ \t]$|\n\s*$/ matches). Looked for from the
 * line feeds: a regular expression would start an attempt at every space of the prose.
 */
function isUntidy(text: string): boolean {
  const length = text.length;
  const skipBlanks = (from: number) => {
    let index = from;
    while (index < length && isBlank(text.charCodeAt(index))) index += 1;
    return index;
  };
  for (let feed = text.indexOf('\n'); feed !== -1; feed = text.indexOf('\n', feed + 1)) {
    if (feed > 0 && isBlank(text.charCodeAt(feed - 1))) return true;
    const second = skipBlanks(feed + 1);
    if (text.charCodeAt(second) === LINE_FEED && text.charCodeAt(skipBlanks(second + 1)) === LINE_FEED)
      return true;
  }
  if (isBlank(text.charCodeAt(length - 1))) return true;
  // trimEnd() strips what \s matches: a line feed among the trailing whitespace.
  return text.lastIndexOf('\n') >= text.trimEnd().length;
}

/** The compact form of one text; the same string object when nothing could be removed. */
export function compactText(text: string): string {
  if (text.length === 0) return text;
  const json = minifyJson(text);
  if (json !== undefined) return json.length < text.length ? json : text;
  // Cheap scans first: most texts have nothing to remove and return here.
  const embedded = EMBEDDED_JSON.test(text);
  if ((!embedded && !isUntidy(text)) || isWhitespaceSensitive(text)) return text;
  // Fenced code may hold JSON examples that must stay as written.
  const fenced = text.includes('```') || text.includes('~~~');
  const minified = embedded && !fenced ? minifyEmbeddedJson(text) : text;
  if (!isUntidy(minified)) return minified;
  const tidy = tidyWhitespace(minified);
  return tidy.length < text.length ? tidy : text;
}
