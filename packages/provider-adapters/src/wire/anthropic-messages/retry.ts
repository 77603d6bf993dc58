/**
 * Where a failure Anthropic names by error type may be retried, the same in an error response
 * and in an `error` event after HTTP 200 (Vertex Claude sends the same types).
 */
import type { RetryScope } from '../../model/response.ts';

const BY_TYPE: ReadonlyMap<string, RetryScope> = new Map([
  // Turned away before any work: the same provider may be asked again.
  ['overloaded_error', 'anywhere'],
  ['rate_limit_error', 'anywhere'],
  // Failed while working on it, or it may have: only another provider.
  ['api_error', 'elsewhere'],
  ['timeout_error', 'elsewhere'],
]);

/** Types about the request or the gateway's account: any provider would answer the same. */
const NEVER: ReadonlySet<string> = new Set([
  'invalid_request_error',
  'authentication_error',
  'permission_error',
  'not_found_error',
  'request_too_large',
  'billing_error',
]);

/** The retry scope an error type states; undefined when it states none (the status decides). */
export function retryForErrorType(type: unknown): RetryScope | undefined {
  return typeof type === 'string' ? BY_TYPE.get(type) : undefined;
}

/**
 * An `error` event has no status: a type that names the request or the account is never
 * retried, and anything else (an unknown type, none) is the provider failing mid-answer.
 */
export function retryForStreamError(type: unknown): RetryScope | undefined {
  if (typeof type === 'string' && NEVER.has(type)) return undefined;
  return retryForErrorType(type) ?? 'elsewhere';
}
