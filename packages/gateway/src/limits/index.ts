/**
 * Rate limits per project and per token: requests and tokens per minute, concurrent requests.
 * Counted in Redis when the gateway has one (exact across instances), else in process.
 *
 * When Redis fails or does not answer within half a second, requests are admitted without limits (logged, counted by the metric
 * `gateway_rate_limit_store_errors_total`): a limiter outage must not become a gateway outage,
 * and budgets, which are what costs money, stay enforced by the ledger regardless.
 */
import type { Redis } from '@app/db';
import type { FastifyBaseLogger } from 'fastify';
import type { Admission, LimitRule, RateLimiter } from '../contracts.ts';
import { memoryLimiter } from './memory-limiter.ts';
import { redisLimiter } from './redis-limiter.ts';
import { NO_TICKET } from './window-figures.ts';

export interface LimiterDeps {
  readonly redis: Redis | undefined;
  /** Longest a request can run (its deadline): a dead instance's concurrency slots free after it. */
  readonly leaseMs: number;
  readonly log: FastifyBaseLogger;
  readonly onStoreError?: () => void;
}

const WARN_EVERY_MS = 10_000;
/** A Redis that does not answer in this time counts as failed: requests are not held up by it. */
const STORE_TIMEOUT_MS = 500;

function withTimeout<T>(work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${STORE_TIMEOUT_MS} ms`)), STORE_TIMEOUT_MS);
  });
  return Promise.race([work, expired]).finally(() => clearTimeout(timer));
}

export function createRateLimiter(deps: LimiterDeps): RateLimiter {
  if (!deps.redis) return memoryLimiter({ leaseMs: deps.leaseMs });
  const shared = redisLimiter(deps.redis, { leaseMs: deps.leaseMs });
  let warnedAt = 0;
  const failed = (error: unknown) => {
    deps.onStoreError?.();
    if (Date.now() - warnedAt < WARN_EVERY_MS) return;
    warnedAt = Date.now();
    deps.log.warn({ err: error }, 'rate limit store (Redis) failed; admitting without rate limits');
  };
  return {
    async admit(rules: readonly LimitRule[], tokens: number): Promise<Admission> {
      try {
        const decided = await withTimeout(shared.admit(rules, tokens));
        if (!decided.admitted) return decided;
        const { ticket } = decided;
        return { ...decided, ticket: { finish: (used) => ticket.finish(used).catch(failed) } };
      } catch (error) {
        failed(error);
        return { admitted: true, ticket: NO_TICKET, state: {} };
      }
    },
    close: () => shared.close(),
  };
}

export { memoryLimiter } from './memory-limiter.ts';
export { redisLimiter } from './redis-limiter.ts';
