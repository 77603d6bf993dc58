/**
 * What a request could possibly have made the upstream bill: a prompt no larger than the
 * model's context window, output no larger than what was reserved for (the client's limit times
 * `n`), no more web searches than the `max_uses` sent. An upstream figure beyond that (a bug, or
 * `completion_tokens: 2^60`) is charged at the bound and reported as an anomaly: never stored
 * unbounded, where it would break every later sum of the ledger.
 *
 * Within a class the cut falls on the plain meter first (`input`, `output`): cache reads and
 * writes are kept inside the bounded prompt, reasoning inside the bounded output.
 */
import { meterClass, METERS, meters, type Usage, usageFromMeters } from '@app/provider-adapters';

export interface UsageLimits {
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Server-side web searches reserved for (the `max_uses` sent upstream). */
  readonly webSearches: number;
}

export function boundUsage(usage: Usage, limits: UsageLimits): { usage: Usage; exceeded: string[] } {
  const used = usage.meters;
  const bounded: Record<string, number> = {};
  let prompt = limits.inputTokens;
  let generated = limits.outputTokens;
  for (const name in used) {
    const quantity = used[name] ?? 0;
    const kind = meterClass(name);
    // The plain meters take what is left once the others are in (below); their place is kept.
    if (name === METERS.input || name === METERS.output) bounded[name] = 0;
    else if (kind === 'prompt') {
      bounded[name] = Math.min(quantity, prompt);
      prompt -= bounded[name];
    } else if (kind === 'generated') {
      bounded[name] = Math.min(quantity, generated);
      generated -= bounded[name];
    } else if (name === METERS.webSearchCalls) bounded[name] = Math.min(quantity, limits.webSearches);
    else bounded[name] = quantity;
  }
  if (METERS.input in used) bounded[METERS.input] = Math.min(used[METERS.input] ?? 0, prompt);
  if (METERS.output in used) bounded[METERS.output] = Math.min(used[METERS.output] ?? 0, generated);
  const exceeded = Object.keys(used).filter((name) => bounded[name] !== used[name]);
  if (exceeded.length === 0) return { usage, exceeded };
  return { usage: usageFromMeters(meters(bounded)), exceeded };
}
