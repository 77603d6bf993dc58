/**
 * `compact` on one text: JSON documents minified; otherwise trailing whitespace dropped and runs
 * of blank lines collapsed to one, outside everything whose bytes may matter: fenced code
 * blocks, block quotes, quoted or backticked spans that run over a line end, and whole texts
 * that look indentation- or whitespace-sensitive (diffs, Makefiles, YAML, Python), where a
 * trailing space or a blank line can be content. The line scan is in tidy.ts.
 */
import { minifyJson } from './json.ts';
import { completesOpener, LINE_PLAIN, LINE_SENSITIVE, type LineKind, lineKind } from './sensitive.ts';
import { tidyText } from './tidy.ts';

/** Diffs, Makefiles, YAML and Python anywhere in the text: left exactly as sent. */
export function isWhitespaceSensitive(text: string): boolean {
  let opener: LineKind = LINE_PLAIN;
  for (let start = 0; ;) {
    let end = text.indexOf('\n', start);
    if (end === -1) end = text.length;
    if (opener !== LINE_PLAIN && completesOpener(text, start, opener)) return true;
    opener = lineKind(text, start, end, text.charCodeAt(start), text.charCodeAt(end - 1));
    if (opener === LINE_SENSITIVE) return true;
    if (end === text.length) return false;
    start = end + 1;
  }
}

/** The compact form of one text; the same string object when nothing could be removed. */
export function compactText(text: string): string {
  if (text.length === 0) return text;
  const json = minifyJson(text);
  if (json !== undefined) return json.length < text.length ? json : text;
  return tidyText(text) ?? text;
}
