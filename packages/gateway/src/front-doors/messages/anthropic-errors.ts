/**
 * The gateway's errors in Anthropic's envelope, for the Messages route only (every other route
 * keeps OpenAI's): `{"type":"error","error":{"type","message"},"request_id"}` with the statuses
 * and types Anthropic's SDKs map to their error classes. The codes stay the catalogue's; the
 * route only renders them differently, so docs/gateway/errors.md lists one table for both.
 */
import type { AppError } from '@app/http-kit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { DASHBOARD_PATH, servesDashboard } from '../../error-format.ts';
import { tokenHint } from '../../errors.ts';

/** Anthropic's status for "overloaded": its SDKs and Claude Code retry it as such. */
export const OVERLOADED_STATUS = 529;

interface AnthropicError {
  readonly status: number;
  readonly type: string;
}

const BY_STATUS: Readonly<Record<number, string>> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  402: 'billing_error',
  403: 'permission_error',
  404: 'not_found_error',
  413: 'request_too_large',
  415: 'invalid_request_error',
  429: 'rate_limit_error',
  500: 'api_error',
  502: 'api_error',
  504: 'timeout_error',
};

/** Every 503 of the catalogue (provider or gateway overloaded, provider out of service) is a 529. */
export function anthropicErrorOf(error: AppError): AnthropicError {
  if (error.status === 503) return { status: OVERLOADED_STATUS, type: 'overloaded_error' };
  const type = BY_STATUS[error.status] ?? (error.status >= 500 ? 'api_error' : 'invalid_request_error');
  return { status: error.status, type };
}

export function anthropicErrorBody(error: AppError, message: string, requestId: string): object {
  return {
    type: 'error',
    error: { type: anthropicErrorOf(error).type, message, code: error.code },
    request_id: requestId,
  };
}

/** The same event after a stream has started: `event: error` as Anthropic streams it. */
export function anthropicErrorEvent(error: AppError, requestId: string): string {
  return `event: error\ndata: ${JSON.stringify(anthropicErrorBody(error, error.message, requestId))}\n\n`;
}

/** The route's renderer (see index.ts): a 401 ends with how to get a token and both ways to send it. */
export function renderAnthropicError(
  error: AppError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const dashboard = servesDashboard(request) ? DASHBOARD_PATH : undefined;
  const message =
    error.status === 401
      ? `${error.message} ${tokenHint(dashboard)} Anthropic clients may send it as "x-api-key: <token>" instead.`
      : error.message;
  return reply
    .code(anthropicErrorOf(error).status)
    .type('application/json; charset=utf-8')
    .send(anthropicErrorBody(error, message, request.id));
}
