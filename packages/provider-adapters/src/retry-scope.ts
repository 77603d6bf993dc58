/**
 * Where a failed upstream call may be retried (see RetryScope), from what every provider's HTTP
 * status says. Adapters refine this with their provider's own signals (an exception name, a
 * google.rpc status, an error type) where the status alone is ambiguous.
 */
import type { UpstreamErrorResponse } from './adapter.ts';
import type { RetryScope, UpstreamFailure } from './model/response.ts';

/**
 * Statuses that turn a request away before any work on it: rate limits, a service that is
 * unavailable, Anthropic's overload.
 */
const NOT_PROCESSED: ReadonlySet<number> = new Set([429, 503, 529]);

/**
 * 408 and every other 5xx may come after the upstream started on the request (or show that this
 * endpoint is broken), so only another provider may be asked. Other 4xx are the client's own
 * request or the gateway's configuration: asking again anywhere would get the same answer.
 */
export function retryForStatus(status: number): RetryScope | undefined {
  if (NOT_PROCESSED.has(status)) return 'anywhere';
  if (status === 408 || status >= 500) return 'elsewhere';
  return undefined;
}

/**
 * OpenAI's and Anthropic's SDKs also resend a 409 to the same host (a lock timeout: the request
 * waited for, and never got, its turn), so the gateway may too; Google and AWS document no such
 * case and their 409s stay unretried.
 */
export function retryForSdkStatus(status: number): RetryScope | undefined {
  return status === 409 ? 'anywhere' : retryForStatus(status);
}

/** The failure with its retry scope; none when `retry` is undefined. */
export function withRetry(failure: UpstreamFailure, retry: RetryScope | undefined): UpstreamFailure {
  return retry === undefined ? failure : { ...failure, retry };
}

/**
 * OpenAI and Anthropic send `x-should-retry` to overrule their SDKs' status rules: it is their
 * word on sending the same request to them again. `false` keeps only another provider; `true`
 * lets the same one be asked. It never makes a failure retryable that was not (a client error,
 * the gateway's credentials): those would fail on any provider.
 */
export function withShouldRetry(
  headers: UpstreamErrorResponse['headers'],
  retry: RetryScope | undefined,
): RetryScope | undefined {
  if (retry === undefined) return undefined;
  const header = headers['x-should-retry'];
  const value = (Array.isArray(header) ? header[0] : header)?.trim().toLowerCase();
  if (value === 'false') return 'elsewhere';
  return value === 'true' ? 'anywhere' : retry;
}

/** OpenAI's error codes (Chat Completions and Responses share them) that turn a request away unworked. */
const OPENAI_NOT_PROCESSED: ReadonlySet<string> = new Set([
  'server_is_overloaded',
  'slow_down',
  'rate_limit_exceeded',
]);

/**
 * An OpenAI error after HTTP 200 (a stream's `error` event, `response.failed`) has no status,
 * only a code: an overload or rate limit may go anywhere; a code about the request (`invalid_*`,
 * a policy violation) nowhere; anything else (`server_error`, none) is the provider failing
 * mid-answer, so only another provider.
 */
export function retryForOpenAIErrorCode(code: unknown): RetryScope | undefined {
  if (typeof code !== 'string') return 'elsewhere';
  if (OPENAI_NOT_PROCESSED.has(code)) return 'anywhere';
  return /^invalid_|polic(?:y|ies)|content_filter/.test(code) ? undefined : 'elsewhere';
}
