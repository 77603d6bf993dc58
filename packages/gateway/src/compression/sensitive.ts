/**
 * Signs of whitespace-sensitive content, looked for at one line start with character codes (the
 * line scanner in tidy.ts calls this once per line, so there is no second pass over the text):
 * unified diffs (hunk line counts include blank and whitespace-only lines), Makefile recipes and
 * tab-separated data (a leading tab), YAML (documents, block scalars, nested mappings) and Python
 * (a block opener followed by an indented line). The rules, as patterns over a line:
 *   diff --git ·  --- \S  ·  +++ \S  ·  @@ -\d  ·  \t  ·  ---[ \t]*$
 *   [ \t]*[\w"'.-]+:[ \t]*[|>][+-]?[ \t]*$                      (YAML block scalar)
 *   [\w.-]+:[ \t]*\n  then  [ \t]+[\w"'.-]+:                     (YAML nested mapping)
 *   [ \t]*(def|class|async def|if|for|while|with|try|elif|else|except)\b[^\n]*:[ \t]*\n
 *     then  [ \t]+\S                                            (Python block)
 * `$` is a line end: `\n`, `\r`, U+2028, U+2029 or the end of the text.
 */

/** What one line says about the text. */
export const LINE_PLAIN = 0;
export const LINE_SENSITIVE = 1;
/** Sensitive if the next line is indented (a Python block opener). */
export const LINE_OPENS_BLOCK = 2;
/** Sensitive if the next line is an indented key (a YAML mapping key). */
export const LINE_OPENS_MAPPING = 3;
export type LineKind = 0 | 1 | 2 | 3;

const TAB = 0x09;
const SPACE = 0x20;
const COLON = 0x3a;

const PYTHON_OPENERS = new Set([
  'def',
  'class',
  'if',
  'for',
  'while',
  'with',
  'try',
  'elif',
  'else',
  'except',
]);

function isBlank(code: number): boolean {
  return code === SPACE || code === TAB;
}

/** `\w`: ASCII letters, digits and underscore. */
function isWord(code: number): boolean {
  return (
    (code >= 0x61 && code <= 0x7a) ||
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x30 && code <= 0x39) ||
    code === 0x5f
  );
}

/** `[\w.-]`, and with `quotes` also `"` and `'`. */
function isKey(code: number, quotes: boolean): boolean {
  return isWord(code) || code === 0x2e || code === 0x2d || (quotes && (code === 0x22 || code === 0x27));
}

/** What `\s` matches: JavaScript's white space and line terminators (what trim() removes). */
export function isSpace(code: number): boolean {
  if (code <= SPACE) return code === SPACE || (code >= TAB && code <= 0x0d);
  if (code < 0xa0) return false;
  return (
    code === 0xa0 ||
    code === 0x1680 ||
    (code >= 0x2000 && code <= 0x200a) ||
    code === 0x2028 ||
    code === 0x2029 ||
    code === 0x202f ||
    code === 0x205f ||
    code === 0x3000 ||
    code === 0xfeff
  );
}

function skipBlanks(text: string, from: number, end: number): number {
  let index = from;
  while (index < end && isBlank(text.charCodeAt(index))) index += 1;
  return index;
}

function skipKey(text: string, from: number, end: number, quotes: boolean): number {
  let index = from;
  while (index < end && isKey(text.charCodeAt(index), quotes)) index += 1;
  return index;
}

/** The index after the line's last character that is not a space or tab. */
function blanksBefore(text: string, start: number, end: number): number {
  let index = end;
  while (index > start && isBlank(text.charCodeAt(index - 1))) index -= 1;
  return index;
}

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

/** `diff --git `, `--- \S`, `+++ \S`, `@@ -\d` or a tab, from the line's first character. */
function isMarker(text: string, start: number, first: number): boolean {
  if (first === TAB) return true;
  if (first === 0x64) return text.startsWith('diff --git ', start);
  if (first === 0x40) return text.startsWith('@@ -', start) && isDigit(text.charCodeAt(start + 4));
  if (first !== 0x2d && first !== 0x2b) return false;
  if (text.charCodeAt(start + 1) !== first || text.charCodeAt(start + 2) !== first) return false;
  const after = start + 3;
  return after + 1 < text.length && text.charCodeAt(after) === SPACE && !isSpace(text.charCodeAt(after + 1));
}

/**
 * `---[ \t]*$` and the YAML block scalar `key: |` (or `>`, `|-`, `>+`...), found from the
 * line's end (`end`: after its last character that is not a blank).
 */
function isYamlMarker(text: string, start: number, end: number): boolean {
  if (end === start + 3 && text.startsWith('---', start)) return true;
  let indicator = end - 1;
  const last = text.charCodeAt(indicator);
  if (last === 0x2b || last === 0x2d) indicator -= 1;
  const code = text.charCodeAt(indicator);
  if (indicator < start || (code !== 0x7c && code !== 0x3e)) return false;
  const colon = blanksBefore(text, start, indicator) - 1;
  if (colon < start || text.charCodeAt(colon) !== COLON) return false;
  const keyStart = skipBlanks(text, start, colon);
  return keyStart < colon && skipKey(text, keyStart, colon, true) === colon;
}

/** A Python block opener: a keyword first, a colon (at `colon`) last. */
function isPythonOpener(text: string, start: number, colon: number): boolean {
  const wordStart = skipBlanks(text, start, colon);
  let wordEnd = wordStart;
  while (wordEnd < colon && isWord(text.charCodeAt(wordEnd))) wordEnd += 1;
  const word = text.slice(wordStart, wordEnd);
  if (word === 'async')
    return text.startsWith(' def', wordEnd) && !isWord(text.charCodeAt(wordEnd + 4)) && wordEnd + 4 <= colon;
  return PYTHON_OPENERS.has(word);
}

/**
 * The kind of the line from `start` to `end` (the index of its `\n`, or the text's length).
 * Most lines are decided by their first and last characters, which the caller reads once for
 * every use: `first` at `start`, `last` at `end - 1`.
 */
export function lineKind(text: string, start: number, end: number, first: number, last: number): LineKind {
  if ((first < 0x41 || first === 0x64) && isMarker(text, start, first)) return LINE_SENSITIVE;
  // Every other rule needs one of these last, before any blanks or a `\r`.
  if (last !== COLON && last !== 0x7c && last !== 0x3e && last !== 0x2b && last !== 0x2d)
    if (last !== SPACE && last !== TAB && last !== 0x0d) return LINE_PLAIN;
  return endKind(text, start, end);
}

/** The rules read from a line's end; `$` is the line end or a `\r` before it. */
function endKind(text: string, start: number, end: number): LineKind {
  let content = blanksBefore(text, start, end);
  if (content === start) return LINE_PLAIN;
  let last = text.charCodeAt(content - 1);
  if (last === COLON) {
    // The two-line rules need a line feed right after the colon and its blanks.
    if (end === text.length) return LINE_PLAIN;
    if (isPythonOpener(text, start, content - 1)) return LINE_OPENS_BLOCK;
    return skipKey(text, start, end, false) === content - 1 && content - 1 > start
      ? LINE_OPENS_MAPPING
      : LINE_PLAIN;
  }
  if (last === 0x0d) {
    content = blanksBefore(text, start, content - 1);
    last = text.charCodeAt(content - 1);
  }
  if (last !== 0x7c && last !== 0x3e && last !== 0x2b && last !== 0x2d) return LINE_PLAIN;
  return isYamlMarker(text, start, content) ? LINE_SENSITIVE : LINE_PLAIN;
}

/** Whether the line at `start` completes what the line before it opened. */
export function completesOpener(text: string, start: number, opener: LineKind): boolean {
  const end = text.length;
  const indented = skipBlanks(text, start, end);
  if (indented === start || indented === end) return false;
  if (opener === LINE_OPENS_BLOCK) return !isSpace(text.charCodeAt(indented));
  const keyEnd = skipKey(text, indented, end, true);
  return keyEnd > indented && text.charCodeAt(keyEnd) === COLON;
}
