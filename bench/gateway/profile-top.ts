/**
 * The top frames of a `--cpu-prof` profile (run.ts `--cpu-prof DIR`): self time per function,
 * summed over the profile's nodes, largest first. `--inclusive` ranks by time with the function
 * anywhere on the stack instead (each sample counted once per function), `--callers NAME` shows
 * which stacks lead to the functions whose name contains NAME, and both leave out idle time, so
 * the percentages are of the busy time. `--skip NAME` drops the samples with NAME on the stack
 * (repeatable; `--skip node:internal/modules`: module loading, i.e. the start-up).
 *
 *   node bench/gateway/profile-top.ts DIR/CPU.*.cpuprofile [--top 25] [--inclusive]
 *     [--callers NAME [--depth 6]] [--skip NAME] [--packages]
 *
 * `--packages` sums self time by package (node_modules/X, packages/X/dir, node:module, native);
 * `--outermost TEXT` charges each busy sample to the outermost frame whose key contains TEXT
 * (`packages/`: which of the project's entry points the time is spent under).
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

interface CallFrame {
  readonly functionName: string;
  readonly url: string;
  readonly lineNumber: number;
}
interface ProfileNode {
  readonly id: number;
  readonly callFrame: CallFrame;
  readonly children?: readonly number[];
}
interface Profile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    top: { type: 'string', default: '25' },
    inclusive: { type: 'boolean', default: false },
    callers: { type: 'string' },
    depth: { type: 'string', default: '6' },
    skip: { type: 'string', multiple: true, default: [] },
    packages: { type: 'boolean', default: false },
    outermost: { type: 'string' },
  },
});
const IDLE = new Set(['(idle)', '(program)']);

/** `--packages`: a frame's package (or node: module, or native function). */
function packageOf(call: CallFrame): string {
  const dep = /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(call.url);
  if (dep) return `node_modules/${dep[1]}`;
  const own = /\/packages\/([^/]+)\/src\/(?:([^/]+)\/)?/.exec(call.url);
  if (own) return `packages/${own[1]}${own[2] ? `/${own[2]}` : ''}`;
  if (call.url.startsWith('node:')) return call.url.replace(/^node:(internal\/)?/, 'node:');
  return call.url === '' ? `${call.functionName} (native)` : call.url;
}

const keyOf = (call: CallFrame) =>
  `${call.functionName || '(anonymous)'} ${call.url.replace(/^.*\/(node_modules|packages)\//, '$1/')}:${call.lineNumber + 1}`;

/** Each node's stack of keys, root first. */
function stacks(profile: Profile): Map<number, readonly string[]> {
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const out = new Map<number, readonly string[]>();
  const stackOf = (id: number): readonly string[] => {
    const known = out.get(id);
    if (known) return known;
    const node = byId.get(id);
    const up = parent.get(id);
    const own = node ? [keyOf(node.callFrame)] : [];
    const stack = up === undefined ? own : [...stackOf(up), ...own];
    out.set(id, stack);
    return stack;
  };
  for (const node of profile.nodes) stackOf(node.id);
  return out;
}

function print(title: string, times: Map<string, number>, total: number): void {
  console.log(title);
  const top = [...times.entries()].sort((a, b) => b[1] - a[1]).slice(0, Number(values.top));
  for (const [key, time] of top) console.log(`${((time / total) * 100).toFixed(1).padStart(5)}%  ${key}`);
}

for (const file of positionals) {
  const profile = JSON.parse(readFileSync(file, 'utf8')) as Profile;
  const stackById = stacks(profile);
  const packageById = new Map(profile.nodes.map((node) => [node.id, packageOf(node.callFrame)]));
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  const callers = new Map<string, number>();
  const outermost = new Map<string, number>();
  let total = 0;
  let busy = 0;
  profile.samples.forEach((id, i) => {
    const stack = stackById.get(id) ?? [];
    const delta = profile.timeDeltas[i] ?? 0;
    const leaf = stack.at(-1);
    if (leaf === undefined) return;
    if (stack.some((key) => values.skip.some((name) => key.includes(name)))) return;
    total += delta;
    const own = values.packages ? (packageById.get(id) ?? leaf) : leaf;
    self.set(own, (self.get(own) ?? 0) + delta);
    if (IDLE.has(leaf.split(' ')[0] ?? '')) return;
    busy += delta;
    for (const key of new Set(stack)) inclusive.set(key, (inclusive.get(key) ?? 0) + delta);
    if (values.outermost !== undefined) {
      const own = stack.find((key) => key.includes(values.outermost ?? '')) ?? '(none)';
      outermost.set(own, (outermost.get(own) ?? 0) + delta);
    }
    const name = values.callers;
    const at = name === undefined ? -1 : stack.findLastIndex((key) => key.includes(name));
    if (at >= 0) {
      const path = stack.slice(Math.max(0, at - Number(values.depth)), at + 1).join('\n      <- ');
      callers.set(path, (callers.get(path) ?? 0) + delta);
    }
  });
  const sampled = `${file}: ${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s busy`;
  if (values.outermost !== undefined)
    print(`${sampled}; outermost frame matching "${values.outermost}", % of busy`, outermost, busy);
  else if (values.callers) print(`${sampled}; stacks into "${values.callers}", % of busy`, callers, busy);
  else if (values.inclusive) print(`${sampled}; inclusive time, % of busy`, inclusive, busy);
  else {
    for (const key of IDLE) for (const own of self.keys()) if (own.startsWith(`${key} `)) self.delete(own);
    print(`${sampled}; self time, % of busy, top ${values.top}`, self, busy);
  }
}
