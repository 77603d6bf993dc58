import { type FastifyReply, type FastifyRequest, LogController } from 'fastify';
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';
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
 * Lines are written in batches of this many bytes (about 15 access lines), or every
 * LOG_FLUSH_INTERVAL_MS when traffic is low: one `write()` per line cost a thread-pool round
 * trip per request, the largest part of the kit's logging cost under load.
 */
export const LOG_BATCH_BYTES = 4096;
/** The longest a log line waits in the batch before it is written. */
export const LOG_FLUSH_INTERVAL_MS = 200;

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
  const destination = pino.destination({
    dest: 1,
    sync: false,
    minLength: LOG_BATCH_BYTES,
    periodicFlush: LOG_FLUSH_INTERVAL_MS,
  });
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
  // Most URLs have no query string: skip the regular expression for them.
  return url.includes('?') ? url.replace(SECRET_QUERY, '$1[redacted]') : url;
}

/**
 * What a service adds to the completion line of a request: flat values, never prompt text or
 * tokens. A successful request's line is redacted by top-level name only (see OneLinePerRequest).
 */
export type RequestLogFields = (request: FastifyRequest) => Readonly<Record<string, unknown>> | undefined;

const errorCodes = new WeakMap<FastifyRequest, string>();

/** The error handler notes the catalogued code it answered with; the completion line shows it. */
export function noteErrorCode(request: FastifyRequest, code: string): void {
  errorCodes.set(request, code);
}

/** Top-level names the access line must never carry in clear, whatever a service adds. */
const ACCESS_LINE_REDACTED = ['token', 'password', 'authorization', 'cookie'];

/**
 * One access-log line per request (at completion, with status and time) instead of Fastify's
 * two; the "incoming request" line drops to debug. Logging is the largest fixed cost of a
 * request in this kit, and the completion line carries everything the first one did.
 *
 * A successful request's line is written by one logger made once per app, not by the
 * request's child: the line is flat (primitives the kit and the service chose, the URL already
 * redacted), so the full redaction, whose wildcard paths run on every key of every line, is
 * replaced by top-level names there. Error lines carry an error object and keep the full one.
 */
export class OneLinePerRequest extends LogController {
  readonly #fields: RequestLogFields | undefined;
  #access: { readonly root: Logger; readonly logger: Logger } | undefined;

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
    // The request's child carries reqId as a binding; the shared logger takes it as a field.
    else
      this.#accessLogger(request.server.log as Logger).info(
        { reqId: request.id, ...line },
        'request completed',
      );
  }

  #accessLogger(root: Logger): Logger {
    if (this.#access?.root !== root) {
      const logger = root.child({}, { redact: { paths: ACCESS_LINE_REDACTED, censor: '[redacted]' } });
      this.#access = { root, logger };
    }
    return this.#access.logger;
  }
}
