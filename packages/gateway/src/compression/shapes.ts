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
};
