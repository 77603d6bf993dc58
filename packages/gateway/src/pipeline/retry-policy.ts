/**
 * When a failed attempt is tried again, and where: pure decisions over the failure's retry
 * scope (set by the adapter or the transport), the request's plan and what it already tried.
 * docs/gateway/models-and-routing.md ("Failures and failover") has the table.
 */
import type { UpstreamFailure } from '@app/provider-adapters';

export interface RetryConfig {
  /** Most providers one automatically routed model entry is sent to. */
  readonly failoverAttempts: number;
  /** Retries on the same provider of a call it provably did not process. */
  readonly sameProviderRetries: number;
  /** Longest wait before such a retry; a longer Retry-After goes to the client instead. */
  readonly retryMaxWaitMs: number;
}

/** First backoff step; each further retry doubles it (then jitter takes up to half off). */
export const RETRY_BASE_MS = 250;

/**
 * Milliseconds until a same-provider retry: the upstream's Retry-After when it sent one
 * (delta-seconds or an HTTP-date), else jittered exponential backoff. `random` is injectable
 * for tests.
 */
export function retryDelayMs(
  failure: UpstreamFailure,
  retry: number,
  now: number = Date.now(),
  random: () => number = Math.random,
): number {
  const hinted = retryAfterMs(failure.retryAfter, now);
  if (hinted !== undefined) return hinted;
  const ceiling = RETRY_BASE_MS * 2 ** retry;
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

function retryAfterMs(value: string | undefined, now: number): number | undefined {
  if (value === undefined) return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** Where the next attempt goes after a failure. */
export type NextStep =
  | { readonly kind: 'failover' }
  | { readonly kind: 'retry'; readonly waitMs: number }
  | { readonly kind: 'fallback' }
  | { readonly kind: 'stop' };

export interface RetryState {
  /** The plan names no provider (and no retry pinned one): another may serve it. */
  readonly automatic: boolean;
  /** Providers of the current model entry tried so far (same-provider retries not counted). */
  readonly providersTried: number;
  /** Same-provider retries made of the current provider. */
  readonly sameRetries: number;
  /** Another model entry of the client's fallback list is left. */
  readonly fallbackLeft: boolean;
  /** Milliseconds before the request's deadline. */
  readonly remainingMs: number;
}

/** Failover first (automatic only), then a same-provider retry, then the next model entry. */
export function nextStep(
  failure: UpstreamFailure,
  state: RetryState,
  config: RetryConfig,
  waitMs: number,
): NextStep {
  if (failure.retry === undefined) return { kind: 'stop' };
  if (state.automatic && state.providersTried < config.failoverAttempts) return { kind: 'failover' };
  return afterFailover(failure, state, config, waitMs);
}

/** No other provider can take the call (or the plan names one): retry it, or move on. */
export function afterFailover(
  failure: UpstreamFailure,
  state: RetryState,
  config: RetryConfig,
  waitMs: number,
): NextStep {
  const retryable =
    failure.retry === 'anywhere' &&
    state.sameRetries < config.sameProviderRetries &&
    waitMs <= config.retryMaxWaitMs &&
    waitMs < state.remainingMs;
  if (retryable) return { kind: 'retry', waitMs };
  if (failure.retry !== undefined && state.fallbackLeft) return { kind: 'fallback' };
  return { kind: 'stop' };
}
