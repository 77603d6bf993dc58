/**
 * Upstream failures as gateway errors with honest statuses: rate limits stay 429 (with the
 * upstream's Retry-After), the client's own mistakes stay 400 (a content-policy refusal says
 * so), an overloaded provider is 503 (Anthropic's 529), timeouts are 504, everything else the
 * provider got wrong is 502. Messages come from the adapter (scrubbed) or from here.
 */
import type { AppError } from '@app/http-kit';
import type { UpstreamFailure } from '@app/provider-adapters';
import type { ProviderId } from '../contracts.ts';
import { gatewayErrors } from '../errors.ts';
import type { TransportError } from '../upstream/index.ts';

export function failureFromTransport(error: TransportError): UpstreamFailure {
  switch (error.kind) {
    case 'timeout':
      return { kind: 'timeout', status: 504, message: 'the provider did not answer in time.' };
    case 'credentials':
      return {
        kind: 'server',
        status: 502,
        message: 'the gateway could not obtain its credentials for the provider.',
      };
    default:
      return { kind: 'connection', status: 502, message: 'the provider could not be reached.' };
  }
}

export function failureError(failure: UpstreamFailure, provider: ProviderId): AppError {
  switch (failure.kind) {
    case 'rate_limited':
      return gatewayErrors.create(
        'rate_limited',
        { reason: `${failure.message} (provider '${provider}')` },
        failure.retryAfter === undefined ? {} : { headers: { 'retry-after': failure.retryAfter } },
      );
    case 'client':
      return failure.code === 'content_filter'
        ? gatewayErrors.create('content_filter', { provider, reason: failure.message })
        : gatewayErrors.create('upstream_invalid_request', { provider, reason: failure.message });
    case 'timeout':
      return gatewayErrors.create('upstream_timeout', { provider });
    case 'server':
    case 'connection':
      return failure.status === 503
        ? gatewayErrors.create('upstream_overloaded', { provider })
        : gatewayErrors.create('upstream_error', { provider, reason: failure.message });
  }
}

/** The OpenAI error envelope as one SSE event, for failures after the stream has started. */
export function sseErrorEvent(error: AppError): string {
  return `data: ${JSON.stringify({
    error: { message: error.message, type: error.type, param: error.param, code: error.code },
  })}\n\n`;
}
