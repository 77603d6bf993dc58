/**
 * Compression is linear in its input: for every adversarial shape (shapes.ts) and both
 * tokenizers, the CPU time of `compressed` (which runs `compact` first) at 64 and 256 KiB of text
 * grows with an exponent of at most 1.3 (2 is the square; one long word and 2 MiB of tool turns
 * were both quadratic). A shape over the bound is measured again (up to three times) before the
 * test fails, so a burst of load on the machine does not fail it.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { growth } from './growth.ts';
import { SHAPES } from './shapes.ts';
import { tokenizerFor } from './tokenizers.ts';

const SIZES: [number, number] = [64 * 1024, 256 * 1024];
const MAX_EXPONENT = 1.3;
/**
 * A quadratic shape is over the bound on every measurement; a linear one only when a burst of
 * load or a major collection lands in the larger run (seen once in CI beside a benchmark).
 */
const RETRIES = 3;

for (const vendor of ['openai', 'anthropic']) {
  test(`compression grows linearly with every adversarial shape (${vendor}'s tokenizer)`, async (t) => {
    const tokenizer = await tokenizerFor(vendor);
    const over: string[] = [];
    for (const shape of Object.keys(SHAPES)) {
      let measured = growth(shape, 'compressed', tokenizer, SIZES);
      for (let retry = 0; retry < RETRIES && measured.exponent > MAX_EXPONENT; retry++)
        measured = growth(shape, 'compressed', tokenizer, SIZES);
      const [small, large] = measured.ms;
      t.diagnostic(
        `${shape}: ${small.toFixed(1)} -> ${large.toFixed(1)} ms, exponent ${measured.exponent.toFixed(2)}`,
      );
      if (measured.exponent > MAX_EXPONENT) over.push(`${shape} (${measured.exponent.toFixed(2)})`);
    }
    assert.deepEqual(over, [], `growth exponent above ${MAX_EXPONENT}`);
  });
}
