import type { UpstreamErrorResponse } from '../adapter.ts';
import { isJsonObject, parseJson } from '../json.ts';
import type { UpstreamFailure } from '../model/response.ts';
import { retryForOpenAIErrorCode, retryForSdkStatus, withRetry, withShouldRetry } from '../retry-scope.ts';
import { safeUpstreamMessage, validRetryAfter } from '../safe-message.ts';

function upstreamMessage(body: string): unknown {
  // Not JSON (an HTML error page from a proxy, say): nothing of it is shown.
  const parsed = parseJson(body);
  if (isJsonObject(parsed) && isJsonObject(parsed.error)) return parsed.error.message;
  if (isJsonObject(parsed) && typeof parsed.error === 'string') return parsed.error;
  if (isJsonObject(parsed)) return parsed.message;
  return undefined;
}

/** OpenAI's and Azure's code for a request refused by the content filter. */
function isContentFilter(body: string): boolean {
  const parsed = parseJson(body);
  const error = isJsonObject(parsed) && isJsonObject(parsed.error) ? parsed.error : {};
  return error.code === 'content_filter' || error.code === 'content_policy_violation';
}

/**
 * Honest statuses: the client's own mistakes (400/413/422) stay 400 with the upstream's
 * scrubbed message; rate limits stay 429 with Retry-After; 408 is a timeout (504); anything
 * that is the gateway's or the provider's fault (auth, unknown deployment, 5xx) is a 502, but a
 * 503 (overloaded) stays 503. Rate
 * limits and faults get a message written here, because the upstream's text may describe its
 * internals or echo the gateway's credentials. Where a retry may go follows OpenAI's SDK, which
 * resends 408, 409, 429 and 5xx, and its `x-should-retry` header (retry-scope.ts).
 */
export function mapOpenAIError(response: UpstreamErrorResponse): UpstreamFailure {
  const failure = failureOf(response);
  const retry =
    failure.kind === 'server' || failure.kind === 'timeout' || failure.kind === 'rate_limited'
      ? retryForSdkStatus(response.status)
      : undefined;
  return withRetry(failure, withShouldRetry(response.headers, retry));
}

function failureOf(response: UpstreamErrorResponse): UpstreamFailure {
  const { status } = response;
  if (status === 429) {
    const retryAfter = validRetryAfter(response.headers['retry-after']);
    return {
      kind: 'rate_limited',
      status: 429,
      message: 'the provider is rate limiting requests.',
      ...(retryAfter === undefined ? {} : { retryAfter }),
    };
  }
  if (status === 408) return { kind: 'timeout', status: 504, message: 'the provider timed out.' };
  if (status === 400 || status === 413 || status === 422) {
    const reason = safeUpstreamMessage(upstreamMessage(response.body));
    return {
      kind: 'client',
      status: 400,
      message: reason ?? `the provider rejected the request (HTTP ${status}).`,
      ...(isContentFilter(response.body) ? { code: 'content_filter' as const } : {}),
    };
  }
  if (status === 401 || status === 403) {
    return { kind: 'auth', status: 502, message: "the provider did not accept the gateway's credentials." };
  }
  if (status === 404) {
    return { kind: 'server', status: 502, message: 'the provider does not know the configured model.' };
  }
  if (status === 503) {
    // Overloaded, like Anthropic's 529: the client is told so, with the provider's Retry-After.
    const retryAfter = validRetryAfter(response.headers['retry-after']);
    return {
      kind: 'server',
      status: 503,
      message: 'the provider is overloaded; try again later.',
      ...(retryAfter === undefined ? {} : { retryAfter }),
    };
  }
  return { kind: 'server', status: 502, message: `the provider answered HTTP ${status}.` };
}

/**
 * A `data: {"error": ...}` event in the middle of a stream: the provider's fault, in the gateway's
 * words; where a retry may go follows the error's code.
 */
export function midStreamFailure(error: unknown): UpstreamFailure {
  const code = isJsonObject(error) ? error.code : undefined;
  return withRetry(
    { kind: 'server', status: 502, message: 'the provider failed mid-stream.' },
    retryForOpenAIErrorCode(code),
  );
}
