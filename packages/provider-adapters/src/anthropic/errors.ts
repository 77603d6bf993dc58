/**
 * Anthropic's error envelope (`{"type":"error","error":{"type","message"}}`) as an
 * UpstreamFailure. The client's own mistakes stay 400 with the scrubbed upstream message; rate
 * limits and the provider's faults (credentials, unknown model, 5xx) get a message written here,
 * because the upstream's text may describe its internals or echo the gateway's credentials.
 * Where a retry may go follows Anthropic's SDK: 408, 409, 429 and 5xx are resent, 429, 529 and
 * `overloaded_error` to the same host (see retry-scope.ts for which may go where).
 */
import type { UpstreamErrorResponse } from '../adapter.ts';
import { isJsonObject, parseJson } from '../json.ts';
import type { UpstreamFailure } from '../model/response.ts';
import { retryForSdkStatus, withRetry, withShouldRetry } from '../retry-scope.ts';
import { safeUpstreamMessage, validRetryAfter } from '../safe-message.ts';
import { retryForErrorType } from '../wire/anthropic-messages/retry.ts';

export interface ErrorDetail {
  readonly type: string | undefined;
  readonly message: unknown;
}

export function anthropicErrorDetail(body: string): ErrorDetail {
  const parsed = parseJson(body);
  const error = isJsonObject(parsed) && isJsonObject(parsed.error) ? parsed.error : {};
  return { type: typeof error.type === 'string' ? error.type : undefined, message: error.message };
}

const CONTENT_FILTER = /content filter|content filtering|usage polic|refus(?:al|ed) (?:by|under) .*polic/i;

/** The provider's safety system refused the request: a client error the gateway labels as such. */
function contentFilter(message: unknown): boolean {
  return typeof message === 'string' && CONTENT_FILTER.test(message);
}

export function rateLimited(response: UpstreamErrorResponse): UpstreamFailure {
  const retryAfter = validRetryAfter(response.headers['retry-after']);
  return {
    kind: 'rate_limited',
    status: 429,
    message: 'the provider is rate limiting requests.',
    retry: 'anywhere',
    ...(retryAfter === undefined ? {} : { retryAfter }),
  };
}

export function clientError(message: unknown, status: number): UpstreamFailure {
  const reason = safeUpstreamMessage(message) ?? `the provider rejected the request (HTTP ${status}).`;
  return {
    kind: 'client',
    status: 400,
    message: reason,
    ...(contentFilter(message) ? { code: 'content_filter' } : {}),
  };
}

export const OVERLOADED: UpstreamFailure = {
  kind: 'server',
  status: 503,
  message: 'the provider is overloaded; try again later.',
  retry: 'anywhere',
};

/** Overloaded, with the upstream's Retry-After when it sent one. */
export function overloaded(response: UpstreamErrorResponse): UpstreamFailure {
  const retryAfter = validRetryAfter(response.headers['retry-after']);
  return retryAfter === undefined ? OVERLOADED : { ...OVERLOADED, retryAfter };
}

export const BAD_CREDENTIALS: UpstreamFailure = {
  kind: 'auth',
  status: 502,
  message: "the provider did not accept the gateway's credentials.",
};

export const UNKNOWN_MODEL: UpstreamFailure = {
  kind: 'server',
  status: 502,
  message: 'the provider does not know the configured model.',
};

export const TIMED_OUT: UpstreamFailure = {
  kind: 'timeout',
  status: 504,
  message: 'the provider timed out.',
  retry: 'elsewhere',
};

/** Anthropic's statuses; 529 is its overload, which the gateway answers as 503. */
export function mapAnthropicError(response: UpstreamErrorResponse): UpstreamFailure {
  const failure = failureOf(response, anthropicErrorDetail(response.body));
  return withRetry(failure, withShouldRetry(response.headers, failure.retry));
}

function failureOf(response: UpstreamErrorResponse, detail: ErrorDetail): UpstreamFailure {
  const { status } = response;
  if (status === 429) return rateLimited(response);
  if (status === 529 || detail.type === 'overloaded_error') return overloaded(response);
  if (status === 408 || status === 504) return TIMED_OUT;
  if (status === 400 || status === 413) {
    const message =
      status === 413 && detail.message === undefined ? 'the request is too large.' : detail.message;
    return clientError(message, status);
  }
  if (contentFilter(detail.message) && status < 500) return clientError(detail.message, status);
  if (status === 401 || status === 403) return BAD_CREDENTIALS;
  if (status === 404) return UNKNOWN_MODEL;
  // The error type is the more precise word (an `api_error` is a failure mid-work, whatever the status).
  const retry = retryForErrorType(detail.type) ?? retryForSdkStatus(status);
  return withRetry({ kind: 'server', status: 502, message: `the provider answered HTTP ${status}.` }, retry);
}
