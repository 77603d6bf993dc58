import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import pino, { type DestinationStream, type LoggerOptions } from 'pino';
import pinoPretty from 'pino-pretty';
import { Type } from 'typebox';

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
  /** `auto` (the default): human-readable on a terminal, JSON lines otherwise. */
  readonly format?: 'auto' | 'json' | 'pretty';
}

/** The config schema entry both services use for their `*_LOG_FORMAT` variable. */
export const LOG_FORMAT = Type.Union([Type.Literal('auto'), Type.Literal('json'), Type.Literal('pretty')], {
  default: 'auto',
  description: 'auto: readable lines on a terminal, JSON lines otherwise; json; pretty',
});

export interface LogDestination {
  readonly stream: DestinationStream;
  /** Writes what is still buffered; called when the app closes. */
  flush(): void;
}

/**
 * JSON lines for machines (asynchronous writes, flushed on close, keep logging off the request
 * path); on a terminal, one readable line per entry, so an operator watching `npm start` is not
 * handed epoch milliseconds. The choice is made when the server is built, never at import.
 */
export function logDestination(
  config: LogConfig,
  isTty: boolean = process.stdout.isTTY === true,
  /** Where pretty lines go (tests); stdout otherwise. */
  output?: NodeJS.WritableStream,
): LogDestination {
  const pretty = config.format === 'pretty' || ((config.format ?? 'auto') === 'auto' && isTty);
  if (pretty) {
    const stream = pinoPretty({
      sync: true,
      colorize: isTty,
      singleLine: true,
      translateTime: 'SYS:HH:MM:ss',
      ignore: 'pid,hostname,service',
      messageFormat: '{service} {msg}',
      ...(output ? { destination: output } : {}),
    });
    return { stream, flush: () => {} };
  }
  const destination = pino.destination({ dest: 1, sync: false });
  return { stream: destination, flush: () => destination.flushSync() };
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

// `code` and `state`: an OpenID Connect callback's authorization code and its binding value.
const SECRET_QUERY = /([?&](?:token|access_token|api_key|key|password|code|state|id_token_hint)=)[^&#]*/gi;

export function redactUrl(url: string): string {
  return url.replace(SECRET_QUERY, '$1[redacted]');
}

/** What a service adds to the completion line of a request (never prompt text or tokens). */
export type RequestLogFields = (request: FastifyRequest) => Readonly<Record<string, unknown>> | undefined;

const errorCodes = new WeakMap<FastifyRequest, string>();

/** The error handler notes the catalogued code it answered with; the completion line shows it. */
export function noteErrorCode(request: FastifyRequest, code: string): void {
  errorCodes.set(request, code);
}

/**
 * One access-log line per request (at completion, with status and time) instead of Fastify's
 * two; the "incoming request" line drops to debug. Logging is the largest fixed cost of a
 * request in this kit, and the completion line carries everything the first one did.
 */
export class OneLinePerRequest extends LogController {
  readonly #fields: RequestLogFields | undefined;

  constructor(fields?: RequestLogFields) {
    super();
    this.#fields = fields;
  }

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
      ...(errorCodes.has(request) ? { errorCode: errorCodes.get(request) } : {}),
      ...this.#fields?.(request),
      responseTime: reply.elapsedTime,
    };
    if (error) reply.log.error({ ...line, err: error }, 'request errored');
    else reply.log.info(line, 'request completed');
  }
}
