/**
 * Upstream failures as gateway errors with honest statuses: rate limits stay 429 (with the
 * upstream's Retry-After), the client's own mistakes stay 400 (a content-policy refusal says
 * so), an overloaded provider is 503 (Anthropic's 529), timeouts are 504, everything else the
 * provider got wrong is 502.
 *
 * This is the one place where an upstream failure becomes text for a client (and for the log
 * line of a 5xx). Only a 400 keeps the upstream's message, which tells the caller what to
 * change; a rate limit or an overload is told in the gateway's words (what happened, which
 * provider, when to retry), and a fault in the adapter's. Whatever remains is cleared of the
 * gateway's own credentials.
 */
import type { AppError } from '@app/http-kit';
import type { UpstreamFailure } from '@app/provider-adapters';
import type { ProviderId } from '../contracts.ts';
import { gatewayErrors } from '../errors.ts';
import type { SecretRedactor, TransportError } from '../upstream/index.ts';

/**
 * A transport failure as an upstream failure, with where a retry may go: a request that never
 * left (connect refused) may go anywhere; one that may have reached the upstream (a reset, a
 * timeout waiting for headers) only to another provider; the request's own deadline nowhere.
 */
export function failureFromTransport(error: TransportError): UpstreamFailure {
  switch (error.kind) {
    case 'timeout':
      return {
        kind: 'timeout',
        status: 504,
        message: 'the provider did not answer in time.',
        ...(error.code === 'DEADLINE' ? {} : { retry: 'elsewhere' }),
      };
    case 'credentials':
      return {
        kind: 'server',
        status: 502,
        message: 'the gateway could not obtain its credentials for the provider.',
        retry: 'elsewhere',
      };
    default:
      return {
        kind: 'connection',
        status: 502,
        message: 'the provider could not be reached.',
        retry: error.unsent ? 'anywhere' : 'elsewhere',
      };
  }
}

/** When to try again: the upstream's Retry-After (delta-seconds or an HTTP-date), if it sent one. */
function retryHint(retryAfter: string | undefined): string {
  if (retryAfter === undefined) return 'retry shortly';
  if (!/^\d+$/.test(retryAfter)) return `retry after ${retryAfter}`;
  return `retry in ${retryAfter} second${retryAfter === '1' ? '' : 's'}`;
}

function retryOptions(failure: UpstreamFailure) {
  return failure.retryAfter === undefined ? {} : { headers: { 'retry-after': failure.retryAfter } };
}

export function failureError(
  failure: UpstreamFailure,
  provider: ProviderId,
  secrets: Pick<SecretRedactor, 'redact'>,
): AppError {
  switch (failure.kind) {
    case 'rate_limited':
      return gatewayErrors.create(
        'rate_limited',
        { provider, retry: retryHint(failure.retryAfter) },
        retryOptions(failure),
      );
    case 'client': {
      const reason = secrets.redact(failure.message);
      return failure.code === 'content_filter'
        ? gatewayErrors.create('content_filter', { provider, reason })
        : gatewayErrors.create('upstream_invalid_request', { provider, reason });
    }
    case 'timeout':
      return gatewayErrors.create('upstream_timeout', { provider });
    case 'auth':
      return gatewayErrors.create('upstream_error', { provider, reason: secrets.redact(failure.message) });
    case 'server':
    case 'connection':
      return failure.status === 503
        ? gatewayErrors.create(
            'upstream_overloaded',
            { provider, retry: retryHint(failure.retryAfter) },
            retryOptions(failure),
          )
        : gatewayErrors.create('upstream_error', { provider, reason: secrets.redact(failure.message) });
  }
}

/** The OpenAI error envelope as one SSE event, for failures after the stream has started. */
export function sseErrorEvent(error: AppError): string {
  return `data: ${JSON.stringify({
    error: { message: error.message, type: error.type, param: error.param, code: error.code },
  })}\n\n`;
}
