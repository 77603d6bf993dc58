/**
 * Google's error envelope `{"error": {code, message, status}}` for a Gemini client: `code` is
 * the HTTP status, `status` Google's canonical code name (google.rpc.Code).
 */
import type { JsonObject } from '../../json.ts';

/** Google's canonical code names and the HTTP status each is answered with. */
export const GOOGLE_STATUSES = {
  INVALID_ARGUMENT: 400,
  FAILED_PRECONDITION: 400,
  OUT_OF_RANGE: 400,
  UNAUTHENTICATED: 401,
  PERMISSION_DENIED: 403,
  NOT_FOUND: 404,
  ABORTED: 409,
  ALREADY_EXISTS: 409,
  RESOURCE_EXHAUSTED: 429,
  CANCELLED: 499,
  INTERNAL: 500,
  UNKNOWN: 500,
  DATA_LOSS: 500,
  UNIMPLEMENTED: 501,
  UNAVAILABLE: 503,
  DEADLINE_EXCEEDED: 504,
} as const;

export type GoogleStatus = keyof typeof GOOGLE_STATUSES;

/** The code name Google gives an HTTP status; a status it has no name for by its class. */
export function googleStatusOf(httpStatus: number): GoogleStatus {
  switch (httpStatus) {
    case 400:
    case 413:
    case 422:
      return 'INVALID_ARGUMENT';
    case 401:
      return 'UNAUTHENTICATED';
    case 402:
    case 403:
      return 'PERMISSION_DENIED';
    case 404:
      return 'NOT_FOUND';
    case 405:
    case 501:
      return 'UNIMPLEMENTED';
    case 409:
      return 'ABORTED';
    case 429:
      return 'RESOURCE_EXHAUSTED';
    case 499:
      return 'CANCELLED';
    case 503:
      return 'UNAVAILABLE';
    case 504:
      return 'DEADLINE_EXCEEDED';
    default:
      return httpStatus >= 400 && httpStatus < 500 ? 'FAILED_PRECONDITION' : 'INTERNAL';
  }
}

/** A `google.rpc.RetryInfo` detail: how long to wait, as Google tells it on a 429. */
export function retryInfoDetail(seconds: number): JsonObject {
  return { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${Math.max(0, seconds)}s` };
}

/**
 * The error body a Gemini client reads. `status` defaults to the HTTP status's code name;
 * `details` (RetryInfo, ErrorInfo) are added only when given.
 */
export function googleErrorBody(
  httpStatus: number,
  message: string,
  status: GoogleStatus = googleStatusOf(httpStatus),
  details?: readonly JsonObject[],
): JsonObject {
  return {
    error: {
      code: httpStatus,
      message,
      status,
      ...(details === undefined || details.length === 0 ? {} : { details: [...details] }),
    },
  };
}
