import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import type { LoggerOptions } from 'pino';

/** Paths pino removes from every log line: credentials must never reach the logs. */
export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["api-key"]',
  'res.headers["set-cookie"]',
  'req.query.token',
  'req.body.token',
  'req.body.password',
  'token',
  'password',
  '*.token',
  '*.password',
  '*.authorization',
] as const;

export interface LogConfig {
  readonly level: string;
  readonly pretty?: boolean;
}

export function loggerOptions(config: LogConfig, service: string): LoggerOptions {
  return {
    level: config.level,
    base: { service },
    redact: { paths: [...REDACTED_PATHS], censor: '[redacted]' },
    serializers: {
      // The default request serializer logs the raw URL, whose query string can carry a token.
      req(request: { method?: string; url?: string; id?: string; ip?: string }) {
        return { method: request.method, url: redactUrl(request.url ?? ''), id: request.id, ip: request.ip };
      },
    },
  };
}

const SECRET_QUERY = /([?&](?:token|access_token|api_key|key|password)=)[^&#]*/gi;

export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY, '$1[redacted]');
}

/**
 * One access-log line per request (at completion, with status and time) instead of Fastify's
 * two; the "incoming request" line drops to debug. Logging is the largest fixed cost of a
 * request in this kit, and the completion line carries everything the first one did.
 */
export class OneLinePerRequest extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    // pino makes disabled levels no-ops, so this costs nothing at the default level.
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(
    error: Error | null | undefined,
    request: FastifyRequest,
    reply: FastifyReply,
  ): void {
    const line = {
      method: request.method,
      url: redactUrl(request.originalUrl),
      statusCode: reply.statusCode,
      responseTime: reply.elapsedTime,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}
