/**
 * The `compact` transform alone (no token counting) against the same transform at a git ref, in
 * one run: the ref's compact.ts, text.ts, json.ts and frozen.ts are extracted to a temporary
 * directory and both versions compact the whole corpus in alternating rounds. Prints the best CPU
 * ms per 100k o200k tokens of each and their ratio, and exits 1 if any conversation compacts
 * differently (a speed-up must not change behaviour). For profiling:
 * `node --cpu-prof bench/compression/compact-speed.ts --rounds 150`.
 *
 *   node bench/compression/compact-speed.ts [--baseline HEAD] [--rounds 30]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import type { ModelRequest } from '@app/provider-adapters';
import { compactRequest } from '@app/gateway/compression/compact.ts';
import { requestTokens } from '@app/gateway/compression/count.ts';
import { frozenPrefix } from '@app/gateway/compression/frozen.ts';
import { tokenizerFor } from '@app/gateway/compression/tokenizers.ts';
import { buildCorpus } from './corpus.ts';

const { values } = parseArgs({
  options: { baseline: { type: 'string', default: 'HEAD' }, rounds: { type: 'string', default: '30' } },
});
type Compact = (request: ModelRequest, frozen: ReturnType<typeof frozenPrefix>) => ModelRequest;

const dir = mkdtempSync(join(tmpdir(), 'compact-baseline-'));
for (const file of ['compact.ts', 'text.ts', 'tidy.ts', 'sensitive.ts', 'json.ts', 'frozen.ts'])
  writeFileSync(
    join(dir, file),
    execFileSync('git', ['show', `${values.baseline}:packages/gateway/src/compression/${file}`], {
      encoding: 'utf8',
      cwd: fileURLToPath(new URL('../..', import.meta.url)),
    }),
  );
const baseline = ((await import(join(dir, 'compact.ts'))) as { compactRequest: Compact }).compactRequest;
rmSync(dir, { recursive: true });

const corpus = buildCorpus().map((entry) => ({
  request: entry.request,
  frozen: frozenPrefix(entry.request),
}));
const o200k = await tokenizerFor('openai');
const tokens = corpus.reduce((sum, entry) => sum + requestTokens(entry.request, o200k), 0);

let differ = 0;
for (const { request, frozen } of corpus)
  if (JSON.stringify(baseline(request, frozen)) !== JSON.stringify(compactRequest(request, frozen)))
    differ += 1;

function cpuMs(compact: Compact): number {
  const start = process.cpuUsage();
  for (const { request, frozen } of corpus) compact(request, frozen);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

let best = { baseline: Infinity, current: Infinity };
for (let round = 0; round < Number(values.rounds); round += 1)
  best = {
    baseline: Math.min(best.baseline, cpuMs(baseline)),
    current: Math.min(best.current, cpuMs(compactRequest)),
  };
const per100k = (ms: number) => (ms / tokens) * 100_000;
console.log(`corpus: ${corpus.length} conversations, ${tokens.toLocaleString('en-US')} o200k tokens`);
console.log(`compact transform, ${values.baseline}: ${per100k(best.baseline).toFixed(2)} ms per 100k tokens`);
console.log(`compact transform, working tree: ${per100k(best.current).toFixed(2)} ms per 100k tokens`);
console.log(`ratio working tree / ${values.baseline}: ${(best.current / best.baseline).toFixed(2)}`);
console.log(`target < 1 ms per 100k tokens: ${per100k(best.current) < 1 ? 'PASS' : 'FAIL'}`);
console.log(`same output on every conversation: ${differ === 0 ? 'PASS' : `FAIL (${differ})`}`);
process.exitCode = differ === 0 ? 0 : 1;
