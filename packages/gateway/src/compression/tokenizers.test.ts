import assert from 'node:assert/strict';
import { test } from 'node:test';
import { boundedCount, MAX_PIECE_CHARS, tokenizerFor } from './tokenizers.ts';

/** Letters from a fixed sequence: no two slices alike, so no tokenizer cache helps. */
function word(length: number, seed = 7): string {
  let state = seed;
  let out = '';
  for (let i = 0; i < length; i++) {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    out += String.fromCharCode(97 + (state % 26));
  }
  return out;
}

const MAX_EXPONENT = 1.3;
/** More measurements of a shape read over the bound, as in the compression growth test. */
const RETRIES = 3;

/** Least CPU time of a few runs, in ms: the least is the one other work disturbed least. */
function cpuMs(run: () => void, repeats = 3): number {
  let best = Infinity;
  for (let i = 0; i < repeats; i++) {
    const start = process.cpuUsage();
    run();
    const used = process.cpuUsage(start);
    best = Math.min(best, (used.user + used.system) / 1000);
  }
  return best;
}

for (const vendor of ['openai', 'anthropic']) {
  test(`${vendor}: counting one long word grows linearly with its length (exponent under 1.3)`, async () => {
    const tokenizer = await tokenizerFor(vendor);
    // Distinct texts per run: the memo of whole texts must not answer.
    let run = 0;
    const timeAt = (length: number) => cpuMs(() => tokenizer.count(`${word(length, ++run)} end`));
    timeAt(4096); // warm-up
    const measure = () => {
      const small = timeAt(16_384);
      const large = timeAt(65_536);
      return { small, large, exponent: Math.log(large / small) / Math.log(4) };
    };
    // A linear count read 1.34 once beside other CPU work; a quadratic one is over on every run.
    let measured = measure();
    for (let retry = 0; retry < RETRIES && measured.exponent >= MAX_EXPONENT; retry++) measured = measure();
    const { small, large, exponent } = measured;
    assert.ok(
      exponent < MAX_EXPONENT,
      `16 KiB ${small.toFixed(1)} ms, 64 KiB ${large.toFixed(1)} ms: exponent ${exponent.toFixed(2)}`,
    );
  });
}

test('boundedCount: texts without long runs are counted whole; long runs in slices, text around them kept', () => {
  const calls: string[] = [];
  const count = (text: string) => {
    calls.push(text);
    return text.length;
  };
  assert.equal(boundedCount('short words only', count), 16);
  assert.deepEqual(calls, ['short words only']);
  calls.length = 0;
  const long = 'x'.repeat(MAX_PIECE_CHARS * 2 + 10);
  assert.equal(boundedCount(`a ${long} b`, count), long.length + 4);
  assert.deepEqual(
    calls.map((text) => text.length),
    [2, MAX_PIECE_CHARS, MAX_PIECE_CHARS, 10, 2],
  );
});
