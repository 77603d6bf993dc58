/**
 * The top frames of a `--cpu-prof` profile (run.ts `--cpu-prof DIR`): self time per function,
 * summed over the profile's nodes, largest first.
 *
 *   node bench/gateway/profile-top.ts DIR/CPU.*.cpuprofile [--top 25]
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { functionName: string; url: string; lineNumber: number };
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { top: { type: 'string', default: '25' } },
});
for (const file of positionals) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const frame = new Map(profile.nodes.map((node) => [node.id, node.callFrame]));
  const self = new Map<string, number>();
  let total = 0;
  profile.samples.forEach((id, i) => {
    const call = frame.get(id);
    const delta = profile.timeDeltas[i] ?? 0;
    if (!call) return;
    const where = call.url.replace(/^.*\/(node_modules|packages)\//, '$1/');
    const key = `${call.functionName || '(anonymous)'} ${where}:${call.lineNumber + 1}`;
    self.set(key, (self.get(key) ?? 0) + delta);
    total += delta;
  });
  console.log(`${file}: ${(total / 1e6).toFixed(1)} s sampled; self time, top ${values.top}`);
  const top = [...self.entries()].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top));
  for (const [key, time] of top) console.log(`${((time / total) * 100).toFixed(1).padStart(5)}%  ${key}`);
}
