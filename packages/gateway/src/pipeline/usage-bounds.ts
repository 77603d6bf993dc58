/**
 * What a request could possibly have made the upstream bill: a prompt no larger than the
 * model's context window, output no larger than what was reserved for (the client's limit times
 * `n`), cache figures inside the prompt, reasoning inside the output. An upstream figure beyond
 * that (a bug, or `completion_tokens: 2^60`) is charged at the bound and reported as an anomaly:
 * never stored unbounded, where it would break every later sum of the ledger.
 */
import type { Usage } from '@app/provider-adapters';

/** More server-side searches than any request makes (Anthropic's `max_uses` tops out far below). */
const MAX_WEB_SEARCHES = 1_000;

export interface UsageLimits {
  readonly inputTokens: number;
  readonly outputTokens: number;
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
    webSearchRequests: Math.min(usage.webSearchRequests, MAX_WEB_SEARCHES),
  };
  const exceeded = (Object.keys(bounded) as Array<keyof Usage>).filter((key) => bounded[key] !== usage[key]);
  return { usage: bounded, exceeded };
}
