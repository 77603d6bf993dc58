/**
 * Admission against the caller's rate limits, before any budget is reserved, and the
 * x-ratelimit-* headers as OpenAI sends them, so SDK retry logic works unchanged: the
 * figures are the tightest of the project's and the token's limits.
 */
import type { FastifyReply } from 'fastify';
import type { LimitRule, LimitTicket, LimitWindow, Principal, RateLimiter, RateState } from '../contracts.ts';
import { gatewayErrors } from '../errors.ts';

const UNLIMITED: LimitTicket = { finish: async () => {} };

function rulesOf(principal: Principal): LimitRule[] {
  const rules: LimitRule[] = [];
  const { project, token } = principal.limits;
  if (Object.keys(project).length > 0)
    rules.push({ scope: 'project', key: String(principal.projectId), limits: project });
  if (Object.keys(token).length > 0) rules.push({ scope: 'token', key: principal.tokenId, limits: token });
  return rules;
}

/** `250ms`, `1.5s`, `6m0s`: the duration format of OpenAI's x-ratelimit-reset-* headers. */
export function formatReset(ms: number): string {
  const whole = Math.max(0, Math.ceil(ms));
  if (whole < 1000) return `${whole}ms`;
  if (whole < 60_000) return `${Number((whole / 1000).toFixed(3))}s`;
  const minutes = Math.floor(whole / 60_000);
  return `${minutes}m${Number(((whole - minutes * 60_000) / 1000).toFixed(3))}s`;
}

function windowHeaders(
  reply: FastifyReply,
  name: 'requests' | 'tokens',
  window: LimitWindow | undefined,
): void {
  if (!window) return;
  reply.header(`x-ratelimit-limit-${name}`, String(window.limit));
  reply.header(`x-ratelimit-remaining-${name}`, String(window.remaining));
  reply.header(`x-ratelimit-reset-${name}`, formatReset(window.resetMs));
}

export function setRateHeaders(reply: FastifyReply, state: RateState): void {
  windowHeaders(reply, 'requests', state.requests);
  windowHeaders(reply, 'tokens', state.tokens);
}

const DIMENSION_NAMES = {
  requests: 'requests per minute',
  tokens: 'tokens per minute',
  concurrency: 'concurrent requests',
} as const;

/**
 * Counts the request against the caller's limits, or throws 429 `rate_limit_exceeded` with
 * Retry-After. `tokens` is the request's estimate (prompt + every output token it may make);
 * the ticket's `finish` replaces it by the real usage.
 */
export async function admitRequest(
  limiter: RateLimiter,
  principal: Principal,
  tokens: number,
  reply: FastifyReply,
): Promise<LimitTicket> {
  const rules = rulesOf(principal);
  if (rules.length === 0) return UNLIMITED;
  const admission = await limiter.admit(rules, tokens);
  setRateHeaders(reply, admission.state);
  if (admission.admitted) return admission.ticket;
  const subject = admission.scope === 'project' ? `project '${principal.projectSlug}'` : 'this token';
  const what = `${DIMENSION_NAMES[admission.dimension]} of ${subject} (limit ${admission.limit})`;
  if (admission.retryAfterMs === undefined) {
    const reason =
      admission.dimension === 'tokens'
        ? `This request may use ${tokens} tokens, more than the ${what}: lower max_tokens or shorten the prompt.`
        : `The ${what} admits no requests.`;
    throw gatewayErrors.create('rate_limit_exceeded', { reason }, { headers: { 'x-should-retry': 'false' } });
  }
  const seconds = Math.max(1, Math.ceil(admission.retryAfterMs / 1000));
  throw gatewayErrors.create(
    'rate_limit_exceeded',
    { reason: `Rate limit reached for ${what}. Retry after ${seconds} s.` },
    {
      headers: {
        'retry-after': String(seconds),
        'retry-after-ms': String(Math.ceil(admission.retryAfterMs)),
      },
    },
  );
}

/** A request's hold on its limits, shared by its attempts and freed once, with their total. */
export interface SharedTicket {
  /** The ticket one attempt finishes (exactly once, like any ticket). */
  attempt(): LimitTicket;
  /** No further attempt will be made: once every attempt has finished, the hold is freed. */
  seal(): void;
}

const UNLIMITED_SHARE: SharedTicket = { attempt: () => UNLIMITED, seal: () => {} };

export function shareTicket(
  ticket: LimitTicket,
  pending: Set<Promise<unknown>>,
  onError: (error: unknown) => void,
): SharedTicket {
  if (ticket === UNLIMITED) return UNLIMITED_SHARE;
  let used = 0;
  let open = 0;
  let sealed = false;
  let freed = false;
  const free = async () => {
    if (!sealed || open > 0 || freed) return;
    freed = true;
    await ticket.finish(used);
  };
  return {
    attempt: () => {
      open += 1;
      return {
        finish: async (tokens) => {
          used += tokens;
          open -= 1;
          await free();
        },
      };
    },
    seal: () => {
      sealed = true;
      // Only when every attempt already finished: then no one else will free the hold.
      const freeing = free()
        .catch(onError)
        .finally(() => pending.delete(freeing));
      pending.add(freeing);
    },
  };
}
