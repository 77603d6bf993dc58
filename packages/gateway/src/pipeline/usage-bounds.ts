/**
 * What a request could possibly have made the upstream bill: a prompt no larger than the
 * model's context window, output no larger than what was reserved for (the client's limit times
 * `n`), cache figures inside the prompt, reasoning inside the output, no more web searches than
 * the `max_uses` sent. An upstream figure beyond
 * that (a bug, or `completion_tokens: 2^60`) is charged at the bound and reported as an anomaly:
 * never stored unbounded, where it would break every later sum of the ledger.
 */
import type { Usage } from '@app/provider-adapters';

export interface UsageLimits {
  readonly inputTokens: number;
  readonly outputTokens: number;
  /** Server-side web searches reserved for (the `max_uses` sent upstream). */
  readonly webSearches: number;
}

export function boundUsage(usage: Usage, limits: UsageLimits): { usage: Usage; exceeded: string[] } {
  const input = Math.min(usage.inputTokens, limits.inputTokens);
  const cachedRead = Math.min(usage.cachedReadTokens, input);
  const cacheWrite = Math.min(usage.cacheWriteTokens, input - cachedRead);
  const output = Math.min(usage.outputTokens, limits.outputTokens);
  const bounded: Usage = {
    inputTokens: input,
    cachedReadTokens: cachedRead,
    cacheWriteTokens: cacheWrite,
    outputTokens: output,
    reasoningTokens: Math.min(usage.reasoningTokens, output),
    webSearchRequests: Math.min(usage.webSearchRequests, limits.webSearches),
  };
  const exceeded = (Object.keys(bounded) as Array<keyof Usage>).filter((key) => bounded[key] !== usage[key]);
  return { usage: bounded, exceeded };
}
