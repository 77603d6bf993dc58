/**
 * Resident memory of the Gemini token counter: RSS of a fresh process before and after counting
 * a corpus prompt (module load included) with the estimate the gateway uses (o200k times a ratio) and, in the same run,
 * after loading the Gemma vocabulary the gateway used before (a devDependency now), with the
 * load time of each. Each measurement runs in its own child process so neither sees the other's heap.
 *
 *   node bench/compression/memory.ts
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const mode = process.argv[2];
if (mode === undefined) {
  const self = fileURLToPath(import.meta.url);
  const run = (which: string) =>
    JSON.parse(execFileSync(process.execPath, [self, which], { encoding: 'utf8' })) as Record<string, number>;
  const estimate = run('estimate');
  const gemma = run('gemma');
  const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
  for (const [name, row] of [
    ['o200k x ratio (request path)', estimate],
    ['Gemma vocabulary (before)', gemma],
  ] as const)
    console.log(
      `${name}: RSS ${mib(row.before ?? 0)} -> ${mib(row.after ?? 0)} (+${mib((row.after ?? 0) - (row.before ?? 0))}), first count ${(row.ms ?? 0).toFixed(0)} ms`,
    );
  console.log(
    `growth ratio Gemma / estimate: ${(((gemma.after ?? 0) - (gemma.before ?? 0)) / Math.max(1, (estimate.after ?? 0) - (estimate.before ?? 0))).toFixed(1)}x`,
  );
} else {
  const { buildCorpus } = await import('./corpus.ts');
  const { requestTokens } = await import('@app/gateway/compression/count.ts');
  const prompt = buildCorpus()[0]?.request;
  if (!prompt) throw new Error('empty corpus');
  const before = process.memoryUsage().rss;
  const start = performance.now();
  // The gateway loads o200k on the first request that compresses for OpenAI or Gemini models.
  const { tokenizerFor } = await import('@app/gateway/compression/tokenizers.ts');
  const { gemmaTokenizer } = await import('@app/gateway/compression/gemma-reference.ts');
  const tokenizer = mode === 'gemma' ? await gemmaTokenizer() : await tokenizerFor('google');
  requestTokens(prompt, tokenizer);
  const ms = performance.now() - start;
  const after = process.memoryUsage().rss;
  process.stdout.write(JSON.stringify({ before, after, ms }));
}
