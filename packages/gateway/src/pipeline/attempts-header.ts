/**
 * `X-Gateway-Attempts`: every call the request sent upstream, in order, as an RFC 8941 list of
 * the provider (a token) with the exact model, the outcome (`ok`, `client_left`, `gateway_error`, or the failure's
 * kind: `rate_limited`, `server`, `timeout`, `connection`, `auth`, `client`) and, for a failure,
 * the status it answers with:
 *
 *     cloud_b;model="claude-sonnet-4-5-20250929";outcome=rate_limited;status=429,
 *     developer;model="claude-sonnet-4-5-20250929";outcome=ok
 */
import { type BareItem, serializeList, Token } from 'structured-headers';
import { printable } from './applied-header.ts';
import type { AttemptRecord } from './call-context.ts';

export const ATTEMPTS_HEADER = 'x-gateway-attempts';

export function formatAttempts(attempts: readonly AttemptRecord[]): string {
  return serializeList(
    attempts.map((attempt) => {
      const params = new Map<string, BareItem>([
        ['model', printable(attempt.model)],
        ['outcome', new Token(attempt.outcome)],
      ]);
      if (attempt.status !== undefined) params.set('status', attempt.status);
      return [new Token(attempt.provider), params];
    }),
  );
}

/**
 * The header by attempts: one successful attempt (almost every request) recurs per model and
 * provider, and the serialiser costs microseconds on the hot path. Bounded like applied.ts's.
 */
const formatted = new Map<string, string>();
const MAX_FORMATTED = 10_000;

export function attemptsValue(attempts: readonly AttemptRecord[]): string {
  const only = attempts.length === 1 ? attempts[0] : undefined;
  if (only === undefined || only.outcome !== 'ok') return formatAttempts(attempts);
  const key = `${only.provider}|${only.model}`;
  let value = formatted.get(key);
  if (value === undefined) {
    value = formatAttempts(attempts);
    if (formatted.size >= MAX_FORMATTED) formatted.clear();
    formatted.set(key, value);
  }
  return value;
}
