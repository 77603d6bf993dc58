import type { AppError } from '@app/http-kit';
import type { FastifyReply, FastifyRequest } from 'fastify';

/** The OpenAI error envelope, so SDK clients raise the error class that matches the status. */
export function renderGatewayError(
  error: AppError,
  _request: FastifyRequest,
  reply: FastifyReply,
): FastifyReply {
  return reply.type('application/json; charset=utf-8').send({
    error: { message: error.message, type: error.type, param: error.param, code: error.code },
  });
}
