import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AppError, isAppError } from './errors.ts';
import { noteErrorCode } from './logger.ts';
import { closeAfterAnswer } from './oversized-body.ts';

/** What the kit recognised in a framework error, for the service to turn into its own code. */
export type FrameworkErrorKind =
  | 'validation'
  | 'malformed_body'
  | 'body_too_large'
  | 'unsupported_media_type'
  | 'not_found'
  | 'bad_request'
  /** Shed under load: 503 with Retry-After. */
  | 'overloaded'
  | 'internal';

export interface ErrorHandling {
  /** Turns a recognised framework error into one of the service's catalogued errors. */
  fromFramework(kind: FrameworkErrorKind, message: string, request: FastifyRequest): AppError;
  /** Writes the error in the service's wire format (JSON envelope, XML, ...). */
  render(error: AppError, request: FastifyRequest, reply: FastifyReply): FastifyReply | Promise<FastifyReply>;
}

function classify(error: FastifyError): { kind: FrameworkErrorKind; message: string } {
  if (error.validation) return { kind: 'validation', message: error.message };
  const status = error.statusCode ?? 500;
  if (status === 413) return { kind: 'body_too_large', message: 'Request body is larger than the limit.' };
  if (status === 415) return { kind: 'unsupported_media_type', message: error.message };
  if (status === 404) return { kind: 'not_found', message: error.message };
  if (error instanceof SyntaxError || (status === 400 && error.code?.startsWith('FST_ERR_CTP_'))) {
    return { kind: 'malformed_body', message: `Request body could not be parsed: ${error.message}` };
  }
  if (status >= 400 && status < 500) return { kind: 'bad_request', message: error.message };
  return { kind: 'internal', message: 'Internal server error.' };
}

/**
 * The one error handler of a service. Catalogued errors are rendered as they are; framework
 * errors are classified and handed to the service's catalogue; anything else is logged with
 * its stack and answered as a bare 500 so no internals reach the client.
 */
export function installErrorHandler(app: FastifyInstance, handling: ErrorHandling): void {
  app.setErrorHandler(async (error: FastifyError | AppError, request, reply) => {
    let appError: AppError;
    if (isAppError(error)) {
      appError = error;
      if (appError.status >= 500)
        request.log.error({ err: error.cause ?? error, code: appError.code }, 'request failed');
    } else {
      const { kind, message } = classify(error as FastifyError);
      if (kind === 'internal') request.log.error({ err: error }, 'unhandled error');
      if (kind === 'body_too_large') closeAfterAnswer(reply);
      appError = handling.fromFramework(kind, message, request);
    }
    for (const [name, value] of Object.entries(appError.headers)) reply.header(name, value);
    noteErrorCode(request, appError.code);
    reply.code(appError.status);
    return handling.render(appError, request, reply);
  });
  app.setNotFoundHandler(async (request, reply) => {
    const appError = handling.fromFramework(
      'not_found',
      `No route for ${request.method} ${request.url.split('?')[0]}`,
      request,
    );
    noteErrorCode(request, appError.code);
    reply.code(appError.status);
    return handling.render(appError, request, reply);
  });
}

export { AppError };
