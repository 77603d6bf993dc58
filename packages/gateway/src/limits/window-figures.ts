/**
 * What both limiters compute, in one shape: per rule, the counts after the decision, and the
 * decision itself. The rate state (x-ratelimit-* headers) is derived from these figures in one
 * place, so the in-process and the Redis limiter answer identically.
 */
import type { Admission, LimitRule, LimitTicket, LimitWindow, RateState } from '../contracts.ts';

/** Limits count over a sliding window of one minute. */
export const WINDOW_MS = 60_000;

export type Dimension = 'requests' | 'tokens' | 'concurrency';
export const DIMENSIONS: readonly Dimension[] = ['requests', 'tokens', 'concurrency'];

export interface RuleFigures {
  /** Requests in the window (the new one included when admitted). */
  readonly requests: number;
  /** Until the newest request leaves the window (the window is full again), ms. */
  readonly requestsResetMs: number;
  /** Tokens counted in the window (estimates of running requests, usage of finished ones). */
  readonly tokens: number;
  readonly tokensResetMs: number;
}

export interface Denial {
  readonly rule: number;
  readonly dimension: Dimension;
  /** Undefined: never (the request alone asks for more than the limit). */
  readonly retryAfterMs: number | undefined;
}

export interface Decision {
  readonly figures: readonly RuleFigures[];
  readonly denial: Denial | undefined;
}

/** Concurrency frees when some running request ends: no time is known, so a short hint. */
export const CONCURRENCY_RETRY_MS = 1_000;

function limitOf(rule: LimitRule, dimension: Dimension): number | undefined {
  if (dimension === 'requests') return rule.limits.requestsPerMinute;
  if (dimension === 'tokens') return rule.limits.tokensPerMinute;
  return rule.limits.concurrentRequests;
}

/** The tightest scope per dimension: fewest remaining, then the lower limit. */
function tightest(
  rules: readonly LimitRule[],
  figures: readonly RuleFigures[],
  dimension: 'requests' | 'tokens',
): LimitWindow | undefined {
  let best: LimitWindow | undefined;
  rules.forEach((rule, index) => {
    const limit = limitOf(rule, dimension);
    const counted = figures[index];
    if (limit === undefined || !counted) return;
    const used = dimension === 'requests' ? counted.requests : counted.tokens;
    const resetMs = dimension === 'requests' ? counted.requestsResetMs : counted.tokensResetMs;
    const window: LimitWindow = {
      limit,
      remaining: Math.max(0, limit - used),
      resetMs: Math.max(0, resetMs),
    };
    if (
      !best ||
      window.remaining < best.remaining ||
      (window.remaining === best.remaining && limit < best.limit)
    )
      best = window;
  });
  return best;
}

export function rateState(rules: readonly LimitRule[], figures: readonly RuleFigures[]): RateState {
  const requests = tightest(rules, figures, 'requests');
  const tokens = tightest(rules, figures, 'tokens');
  return { ...(requests ? { requests } : {}), ...(tokens ? { tokens } : {}) };
}

export function admission(rules: readonly LimitRule[], decision: Decision, ticket: LimitTicket): Admission {
  const state = rateState(rules, decision.figures);
  const denial = decision.denial;
  if (!denial) return { admitted: true, ticket, state };
  const rule = rules[denial.rule];
  return {
    admitted: false,
    state,
    scope: rule?.scope ?? 'project',
    dimension: denial.dimension,
    limit: rule ? (limitOf(rule, denial.dimension) ?? 0) : 0,
    retryAfterMs: denial.retryAfterMs,
  };
}

/** The limits as numbers for a script: -1 for a dimension without a limit. */
export function limitArgs(rule: LimitRule): [number, number, number] {
  return [
    rule.limits.requestsPerMinute ?? -1,
    rule.limits.tokensPerMinute ?? -1,
    rule.limits.concurrentRequests ?? -1,
  ];
}

/** Of several denials the one that frees last decides when to come back. */
export function laterDenial(current: Denial | undefined, next: Denial): Denial {
  if (!current) return next;
  if (current.retryAfterMs === undefined) return current;
  if (next.retryAfterMs === undefined || next.retryAfterMs > current.retryAfterMs) return next;
  return current;
}

export const NO_TICKET: LimitTicket = { finish: async () => {} };
