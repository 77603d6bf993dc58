/**
 * Measures the ratio the gateway's Gemini estimate uses (o200k count times GEMINI_PER_O200K,
 * tokenizers.ts) against the Gemma SentencePiece vocabulary Gemini shares, on the shipped corpus:
 * the ratio per conversation kind and over the corpus, and the relative error of the estimate per
 * conversation (mean and worst per kind). The Gemma tokenizer is a devDependency: it is loaded
 * here only, never on the request path.
 *
 *   node bench/compression/gemini-ratio.ts
 */
import { requestTokens } from '@app/gateway/compression/count.ts';
import { gemmaTokenizer } from '@app/gateway/compression/gemma-reference.ts';
import { GEMINI_PER_O200K, tokenizerFor } from '@app/gateway/compression/tokenizers.ts';
import { buildCorpus } from './corpus.ts';

const o200k = await tokenizerFor('openai');
const estimate = await tokenizerFor('google');
const gemma = await gemmaTokenizer();
const kinds = new Map<string, { o200k: number; gemma: number; errors: number[] }>();
let totalO200k = 0;
let totalGemma = 0;
for (const entry of buildCorpus()) {
  const ours = requestTokens(entry.request, o200k);
  const exact = requestTokens(entry.request, gemma);
  const guess = requestTokens(entry.request, estimate);
  const row = kinds.get(entry.kind) ?? { o200k: 0, gemma: 0, errors: [] };
  row.o200k += ours;
  row.gemma += exact;
  row.errors.push((guess - exact) / exact);
  kinds.set(entry.kind, row);
  totalO200k += ours;
  totalGemma += exact;
}
const pct = (value: number) => `${value >= 0 ? '+' : ''}${(value * 100).toFixed(1)} %`;
console.log(
  `Gemma / o200k over the corpus: ${(totalGemma / totalO200k).toFixed(3)} (in use: ${GEMINI_PER_O200K})`,
);
console.log('| Kind | Gemma / o200k | Estimate error, mean | Estimate error, worst |');
console.log('| --- | ---: | ---: | ---: |');
for (const [kind, row] of kinds) {
  const mean = row.errors.reduce((sum, value) => sum + value, 0) / row.errors.length;
  const worst = row.errors.reduce((max, value) => (Math.abs(value) > Math.abs(max) ? value : max), 0);
  console.log(`| ${kind} | ${(row.gemma / row.o200k).toFixed(3)} | ${pct(mean)} | ${pct(worst)} |`);
}
