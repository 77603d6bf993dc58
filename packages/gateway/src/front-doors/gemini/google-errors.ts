/**
 * The gateway's errors in Google's envelope, for the Gemini routes only:
 * `{"error":{"code","message","status","details":[ErrorInfo]}}`, the HTTP status the
 * catalogue's, `status` the canonical code Google gives that status (the codec's mapping, the
 * one every Gemini client of the gateway sees). The gateway's own code travels as the
 * ErrorInfo's `reason`, so docs/gateway/errors.md keeps one table of codes.
 */
import type { AppError } from '@app/http-kit';
import { gemini, type JsonObject } from '@app/provider-adapters';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DASHBOARD_PATH, servesDashboard } from '../../error-format.ts';
import { tokenHint } from '../../errors.ts';

export const ERROR_INFO_TYPE = 'type.googleapis.com/google.rpc.ErrorInfo';
/** The ErrorInfo `domain` of the gateway's own codes. */
export const ERROR_DOMAIN = 'model-gateway';

/** The canonical code of the error's HTTP status, as the codec names it for every Gemini client. */
export function googleStatusOf(error: AppError): gemini.GoogleStatus {
  return gemini.googleStatusOf(error.status);
}

export function googleErrorBody(error: AppError, message: string): JsonObject {
  const info: JsonObject = {
    '@type': ERROR_INFO_TYPE,
    reason: error.code,
    domain: ERROR_DOMAIN,
    ...(error.param === null ? {} : { metadata: { param: error.param } }),
  };
  return gemini.googleErrorBody(error.status, message, googleStatusOf(error), [info]);
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
