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
  /**
   * Turns a recognised framework error into one of the service's catalogued errors. `param` is
   * the request field a validation error is about, as the API names it (`messages[0].role`).
   */
  fromFramework(kind: FrameworkErrorKind, message: string, request: FastifyRequest, param?: string): AppError;
  /** Writes the error in the service's wire format (JSON envelope, XML, ...). */
  render(error: AppError, request: FastifyRequest, reply: FastifyReply): FastifyReply | Promise<FastifyReply>;
}

interface Classified {
  readonly kind: FrameworkErrorKind;
  readonly message: string;
  readonly param?: string;
}

type ValidationIssue = NonNullable<FastifyError['validation']>[number];

/**
 * A schema error in the API's own terms: the field as a client names it (`messages`,
 * `messages[0].role`), not the validator's `body/messages` pointer, so a client can tell which
 * field to change.
 */
export function validationDetail(issues: readonly ValidationIssue[]): { message: string; param?: string } {
  const first = issues[0];
  if (!first) return { message: 'The request is not valid.' };
  const missing =
    first.keyword === 'required'
      ? (first.params as { missingProperty?: unknown }).missingProperty
      : undefined;
  const segments = first.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replaceAll('~1', '/').replaceAll('~0', '~'));
  if (typeof missing === 'string') segments.push(missing);
  const param = segments.reduce(
    (path, segment) =>
      /^\d+$/.test(segment) ? `${path}[${segment}]` : path ? `${path}.${segment}` : segment,
    '',
  );
  const reason = typeof missing === 'string' ? 'is required' : (first.message ?? 'is not valid');
  if (param === '') return { message: `The request body ${reason}.` };
  return { message: `'${param}' ${reason}.`, param };
}

function classify(error: FastifyError): Classified {
  if (error.validation) {
    // Query strings and headers keep the validator's message: their names are already the API's.
    if (error.validationContext !== 'body') return { kind: 'validation', message: error.message };
    return { kind: 'validation', ...validationDetail(error.validation) };
  }
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
      const { kind, message, param } = classify(error as FastifyError);
      if (kind === 'internal') request.log.error({ err: error }, 'unhandled error');
      if (kind === 'body_too_large') closeAfterAnswer(reply);
      appError = handling.fromFramework(kind, message, request, param);
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
