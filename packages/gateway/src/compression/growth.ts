/**
 * How compression's CPU time grows with its input, per adversarial shape (shapes.ts): the least
 * of a few runs at two sizes, and the exponent of the growth between them (1: linear, 2: the
 * square). Shared by the growth test and bench/compression/growth.ts.
 */
import { type CompressionLevel, compress } from './index.ts';
import { SHAPES } from './shapes.ts';
import type { Tokenizer } from './tokenizers.ts';

export interface Growth {
  readonly shape: string;
  readonly level: CompressionLevel;
  readonly tokenizer: Tokenizer['name'];
  /** CPU milliseconds at the smaller and the larger size. */
  readonly ms: readonly [number, number];
  readonly exponent: number;
}

function cpuMs(run: () => void): number {
  const start = process.cpuUsage();
  run();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/** The least CPU time of `runs` compressions of a fresh request (each run's texts are new: no memo). */
function leastMs(shape: string, size: number, level: CompressionLevel, tokenizer: Tokenizer, runs: number) {
  const make = SHAPES[shape];
  if (!make) throw new Error(`no shape '${shape}'`);
  let least = Infinity;
  for (let run = 0; run < runs; run++) {
    const request = make(size, `${size}.${run}.${Math.random()} `);
    least = Math.min(
      least,
      cpuMs(() => compress({ request, level, budget: 2_000, tokenizer })),
    );
  }
  return least;
}

export function growth(
  shape: string,
  level: CompressionLevel,
  tokenizer: Tokenizer,
  sizes: readonly [number, number],
  runs = 4,
): Growth {
  const small = leastMs(shape, sizes[0], level, tokenizer, runs);
  const large = leastMs(shape, sizes[1], level, tokenizer, runs);
  const exponent = Math.log(large / Math.max(small, 0.01)) / Math.log(sizes[1] / sizes[0]);
  return { shape, level, tokenizer: tokenizer.name, ms: [small, large], exponent };
}
