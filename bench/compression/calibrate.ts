/**
 * The gateway's Claude tokenizer against an Anthropic count_tokens endpoint, over the corpus:
 * mean and worst relative error per conversation kind. With ANTHROPIC_API_KEY set it asks
 * Anthropic itself (free: count_tokens generates nothing; ANTHROPIC_BASE_URL overrides the
 * origin, --model the model); without it, the bundled simulator, whose counter is a
 * four-characters-per-token heuristic, so that run checks the plumbing, not the tokenizer.
 *
 *   ANTHROPIC_API_KEY=... node bench/compression/calibrate.ts [--model claude-sonnet-4-5-20250929] [--limit 20]
 */
import { parseArgs } from 'node:util';
import Anthropic from '@anthropic-ai/sdk';
import { compressedSource } from '@app/gateway/compression/source.ts';
import { requestTokens } from '@app/gateway/compression/count.ts';
import { tokenizerFor } from '@app/gateway/compression/tokenizers.ts';
import { startSimulator } from '@app/upstream-simulator';
import { buildCorpus } from './corpus.ts';

const { values } = parseArgs({
  options: {
    model: { type: 'string', default: 'claude-sonnet-4-5-20250929' },
    limit: { type: 'string', default: '56' },
  },
});
const realKey = process.env.ANTHROPIC_API_KEY;
const sim = realKey ? undefined : await startSimulator();
const client = new Anthropic({
  apiKey: realKey ?? sim?.credentials.anthropicKey,
  baseURL: realKey ? process.env.ANTHROPIC_BASE_URL : `${sim?.url}/anthropic`,
  maxRetries: 2,
});
const claude = await tokenizerFor('anthropic');
const errors = new Map<string, number[]>();
for (const entry of buildCorpus().slice(0, Number(values.limit))) {
  const source = compressedSource({ api: 'anthropic-messages', body: {} }, entry.request);
  if (!source) throw new Error('no Messages body');
  const params = { ...source.body, model: values.model } as unknown as Anthropic.MessageCountTokensParams;
  const counted = (await client.messages.countTokens(params)).input_tokens;
  const ours = requestTokens(entry.request, claude);
  const list = errors.get(entry.kind) ?? [];
  list.push((ours - counted) / counted);
  errors.set(entry.kind, list);
}
console.log(`counter: ${realKey ? `Anthropic (${values.model})` : 'simulator (character heuristic)'}`);
console.log('| Kind | Conversations | Mean error | Worst error |');
console.log('| --- | ---: | ---: | ---: |');
for (const [kind, list] of errors) {
  const mean = list.reduce((sum, value) => sum + value, 0) / list.length;
  const worst = list.reduce((max, value) => (Math.abs(value) > Math.abs(max) ? value : max), 0);
  const pct = (value: number) => `${value >= 0 ? '+' : ''}${(value * 100).toFixed(1)} %`;
  console.log(`| ${kind} | ${list.length} | ${pct(mean)} | ${pct(worst)} |`);
}
await sim?.close();
