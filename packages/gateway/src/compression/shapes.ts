/**
 * Adversarial prompt shapes for the growth test and the benchmark: each builds a request of
 * about `size` characters that stresses one stage of compression (tokenising, tidying, JSON
 * minifying, repeat detection, cutting turns).
 */
import type { ModelRequest, Part, Turn } from '@app/provider-adapters';

const user = (text: string): Turn => ({ role: 'user', content: [{ type: 'text', text }] });

function oneText(text: string): ModelRequest {
  return { system: [], turns: [user(text)], tools: [], stream: false };
}

/** Call/result pairs between a first question and a last one: the `compressed` cut's worst case. */
function turns(size: number, identical: boolean, salt: string): ModelRequest {
  const pairs = Math.max(1, Math.floor(size / 330));
  const out: Turn[] = [user('Go through the files.')];
  for (let i = 0; i < pairs; i++) {
    const body = identical ? `${salt}${'x'.repeat(300)}` : `${salt}file ${i}: ${'word '.repeat(60)}`;
    const call: Part = { type: 'tool_call', id: `c${i}`, name: 'read', arguments: `{"i":${i}}` };
    out.push({ role: 'assistant', content: [call] });
    out.push({
      role: 'user',
      content: [{ type: 'tool_result', callId: `c${i}`, content: [{ type: 'text', text: body }] }],
    });
  }
  out.push({ role: 'assistant', content: [{ type: 'text', text: 'Done.' }] }, user('Summarise.'));
  return { system: [], turns: out, tools: [], stream: false };
}

/** Lowercase words from a fixed sequence seeded by `salt`: few pieces repeat, so no cache helps. */
function distinctWords(size: number, salt: string): string {
  let state = [...salt].reduce((hash, char) => (hash * 31 + char.charCodeAt(0)) >>> 0, 7);
  const codes: number[] = [];
  for (let i = 0; i < size; i++) {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    codes.push(i % 7 === 6 ? 0x20 : 97 + (state % 26));
  }
  let out = '';
  for (let at = 0; at < codes.length; at += 8192) out += String.fromCharCode(...codes.slice(at, at + 8192));
  return out;
}

/** Tool results longer than V8 hashes by content (16,383 characters), all of one length. */
function longResults(size: number, salt: string): ModelRequest {
  const request = turns(size, false, salt);
  let index = 0;
  const results = request.turns.map((turn) => ({
    ...turn,
    content: turn.content.map((part) =>
      part.type === 'tool_result' && index < Math.ceil(size / 17_000)
        ? {
            ...part,
            content: [
              {
                type: 'text' as const,
                text: `${salt}${'r'.repeat(17_000)}${String(index++).padStart(8, '0')}`,
              },
            ],
          }
        : part,
    ),
  }));
  return { ...request, turns: results };
}

/**
 * `salt` starts every long text: counts of long texts are memoised, so a measurement that is
 * repeated must not find the previous run's counts.
 */
export const SHAPES: Readonly<Record<string, (size: number, salt: string) => ModelRequest>> = {
  'one long word': (size, salt) => oneText(salt + 'a'.repeat(size)),
  'one long line': (size, salt) =>
    oneText(salt + 'lorem ipsum dolor '.repeat(Math.ceil(size / 18)).slice(0, size)),
  'many short lines': (size, salt) => oneText(salt + 'ab   \n'.repeat(Math.ceil(size / 6))),
  'long white space runs': (size, salt) =>
    oneText(`${salt}x${' '.repeat(size / 2)}y${'\n'.repeat(size / 2)}z`),
  'deep JSON': (size, salt) => oneText(salt + '['.repeat(size / 2) + ']'.repeat(size / 2)),
  'unbalanced fences and quotes': (size, salt) => oneText(salt + '```\n"a `b\n'.repeat(Math.ceil(size / 10))),
  'one character run, lines': (size, salt) =>
    oneText(salt + `${'{'.repeat(60)}\n`.repeat(Math.ceil(size / 61))),
  'many turns': (size, salt) => turns(size, false, salt),
  'many identical tool results': (size, salt) => turns(size, true, salt),
  // Every map of texts compared each new one with all the others (V8 hashes long strings by length).
  'long tool results of one length': (size, salt) => longResults(size * 4, salt),
  // Fills gpt-tokenizer's merge cache, whose evictions then cost about its size per piece.
  'distinct words': (size, salt) => oneText(distinctWords(size, salt)),
};
