/**
 * What the lazily loaded tokenizers save a gateway that never compresses: resident memory of a
 * fresh process after importing the gateway's app module, and after loading the o200k and then
 * the Claude vocabulary too (what every gateway held at start when they were imported eagerly),
 * each in its own child process, in one run.
 *
 *   node bench/compression/startup-memory.ts
 */
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const mode = process.argv[2];
if (mode === undefined) {
  const self = fileURLToPath(import.meta.url);
  const rss = (which: string) => Number(execFileSync(process.execPath, [self, which], { encoding: 'utf8' }));
  const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
  const app = rss('app');
  const o200k = rss('o200k');
  const both = rss('both');
  console.log(`app module imported: RSS ${mib(app)}`);
  console.log(`+ o200k loaded: RSS ${mib(o200k)} (+${mib(o200k - app)})`);
  console.log(`+ o200k and Claude loaded: RSS ${mib(both)} (+${mib(both - app)})`);
} else {
  await import('@app/gateway/app.ts');
  const { tokenizerFor } = await import('@app/gateway/compression/tokenizers.ts');
  if (mode !== 'app') (await tokenizerFor('openai')).count('Hello, world!');
  if (mode === 'both') (await tokenizerFor('anthropic')).count('Hello, world!');
  process.stdout.write(String(process.memoryUsage().rss));
}
