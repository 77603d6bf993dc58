/**
 * The Gemini estimate (o200k times GEMINI_PER_O200K) against the Gemma vocabulary Gemini shares,
 * on the corpus the bench ships: the constant is the measured ratio, so a change to either
 * tokenizer or to the corpus that moves the ratio fails here. Loads Gemma (~1 s), a
 * devDependency the request path never imports.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildCorpus } from '../../../../bench/compression/corpus.ts';
import { requestTokens } from './count.ts';
import { gemmaTokenizer } from './gemma-reference.ts';
import { GEMINI_PER_O200K, tokenizerFor } from './tokenizers.ts';

test('the Gemini estimate is o200k scaled by the ratio measured against the Gemma vocabulary', async () => {
  const gemma = await gemmaTokenizer();
  assert.equal(gemma.count('Hello, world!'), 4);
  assert.equal(gemma.count('東京の天気は晴れです。'), 7);
  const o200k = await tokenizerFor('openai');
  const google = await tokenizerFor('google');
  let exact = 0;
  let base = 0;
  for (const { request } of buildCorpus()) {
    exact += requestTokens(request, gemma);
    base += requestTokens(request, o200k);
  }
  const measured = exact / base;
  assert.ok(Math.abs(measured - GEMINI_PER_O200K) < 0.005, `measured ${measured.toFixed(4)}`);
  const estimate = buildCorpus().reduce((sum, { request }) => sum + requestTokens(request, google), 0);
  // Over the whole corpus the estimate is within 1 % of the real vocabulary's count.
  assert.ok(Math.abs(estimate - exact) / exact < 0.01, `${estimate} vs ${exact}`);
});
