import type { AppError } from '@app/http-kit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ADMIN_API_ERROR_CODES, tokenHint } from './errors.ts';

/** Where the account dashboard is served when it is; the 401 hint names it only if it exists. */
export const DASHBOARD_PATH = '/dashboard';

/**
 * True when this gateway serves the account dashboard (decided once, when it was mounted: when it
 * is off, /dashboard still answers, saying why).
 */
export function servesDashboard(request: FastifyRequest): boolean {
  return request.server.dashboardEnabled === true;
}

/**
 * The OpenAI envelope, so SDK clients raise the error class that matches the status. A 401 ends
 * with how to get a token, naming the dashboard only when it is served (the admin API's 401s
 * say how to get an admin key instead).
 */
export function renderGatewayError(
  error: AppError,
  request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  const message =
    error.status === 401 && !ADMIN_API_ERROR_CODES.includes(error.code)
      ? `${error.message} ${tokenHint(servesDashboard(request) ? DASHBOARD_PATH : undefined)}`
      : error.message;
  return reply.type('application/json; charset=utf-8').send({
    error: { message, type: error.type, param: error.param, code: error.code },
  });
}
