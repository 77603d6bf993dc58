/**
 * The gateway's errors in Google's envelope, for the Gemini routes only:
 * `{"error":{"code","message","status","details":[ErrorInfo]}}`, the HTTP status the
 * catalogue's, `status` the canonical code Google's SDKs and Gemini CLI read (RESOURCE_EXHAUSTED
 * and UNAVAILABLE are retried by them). The gateway's own code travels as the ErrorInfo's
 * `reason`, so docs/gateway/errors.md keeps one table of codes.
 */
import type { AppError } from '@app/http-kit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DASHBOARD_PATH, servesDashboard } from '../../error-format.ts';
import { tokenHint } from '../../errors.ts';

/** Google's canonical codes (google.rpc.Code) the gateway answers with. */
export type GoogleStatus =
  | 'INVALID_ARGUMENT'
  | 'UNAUTHENTICATED'
  | 'PERMISSION_DENIED'
  | 'NOT_FOUND'
  | 'RESOURCE_EXHAUSTED'
  | 'INTERNAL'
  | 'UNAVAILABLE'
  | 'DEADLINE_EXCEEDED';

const BY_STATUS: Readonly<Record<number, GoogleStatus>> = {
  400: 'INVALID_ARGUMENT',
  401: 'UNAUTHENTICATED',
  // An allocation out of budget is a quota, as Google reports one; its HTTP status stays 402 so
  // clients that retry every 429 do not retry what only a project admin can fix.
  402: 'RESOURCE_EXHAUSTED',
  403: 'PERMISSION_DENIED',
  404: 'NOT_FOUND',
  // A retired model is gone as Google says of a removed one; the status stays 410.
  410: 'NOT_FOUND',
  413: 'INVALID_ARGUMENT',
  415: 'INVALID_ARGUMENT',
  429: 'RESOURCE_EXHAUSTED',
  500: 'INTERNAL',
  502: 'UNAVAILABLE',
  503: 'UNAVAILABLE',
  504: 'DEADLINE_EXCEEDED',
};

export const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';
/** The ErrorInfo `domain` of the gateway's own codes. */
export const ERROR_DOMAIN = 'model-gateway';

export function googleStatusOf(error: AppError): GoogleStatus {
  return BY_STATUS[error.status] ?? (error.status >= 500 ? 'INTERNAL' : 'INVALID_ARGUMENT');
}

export function googleErrorBody(error: AppError, message: string): object {
  return {
    error: {
      code: error.status,
      message,
      status: googleStatusOf(error),
      details: [
        {
          '@type': ERROR_INFO_TYPE,
          reason: error.code,
          domain: ERROR_DOMAIN,
          ...(error.param === null ? {} : { metadata: { param: error.param } }),
        },
      ],
    },
  };
}

/** A 401 ends with how to get a token and the ways a Gemini client may send it. */
export function googleErrorMessage(error: AppError, request: FastifyRequest): string {
  if (error.status !== 401) return error.message;
  const dashboard = servesDashboard(request) ? DASHBOARD_PATH : undefined;
  return `${error.message} ${tokenHint(dashboard)} Gemini clients may send it as "x-goog-api-key: <token>" (GEMINI_API_KEY) or the query parameter key=<token> instead.`;
}

/** The Gemini routes' renderer (see index.ts). */
export function renderGoogleError(
  error: AppError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  return reply
    .code(error.status)
    .type('application/json; charset=utf-8')
    .send(googleErrorBody(error, googleErrorMessage(error, request)));
}
