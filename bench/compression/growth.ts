/**
 * Growth of compression's CPU time with its input, per adversarial shape and tokenizer (a
 * script, not a test; the growth test holds the exponents under 1.3 in CI):
 *
 *   npm run bench:compression-growth -- [--small 65536] [--large 262144] [--runs 3]
 *
 * Prints the least CPU time of `runs` at each size and the growth exponent (1: linear).
 */
import { parseArgs } from 'node:util';
import { growth } from '../../packages/gateway/src/compression/growth.ts';
import { SHAPES } from '../../packages/gateway/src/compression/shapes.ts';
import { tokenizerFor } from '../../packages/gateway/src/compression/tokenizers.ts';

const { values } = parseArgs({
  options: {
    small: { type: 'string', default: '65536' },
    large: { type: 'string', default: '262144' },
    runs: { type: 'string', default: '3' },
  },
});
const sizes: [number, number] = [Number(values.small), Number(values.large)];
console.log(`| tokenizer | shape | level | ms at ${sizes[0]} chars | ms at ${sizes[1]} chars | exponent |`);
console.log('|---|---|---|---:|---:|---:|');
for (const vendor of ['openai', 'anthropic']) {
  const tokenizer = await tokenizerFor(vendor);
  for (const shape of Object.keys(SHAPES))
    for (const level of ['compact', 'compressed'] as const) {
      const g = growth(shape, level, tokenizer, sizes, Number(values.runs));
      console.log(
        `| ${g.tokenizer} | ${shape} | ${level} | ${g.ms[0].toFixed(1)} | ${g.ms[1].toFixed(1)} | ${g.exponent.toFixed(2)} |`,
      );
    }
}
