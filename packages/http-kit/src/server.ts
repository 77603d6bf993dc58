import { randomUUID } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import Fastify, {
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  type FastifyServerOptions,
} from 'fastify';
import { type ErrorHandling, installErrorHandler } from './error-handler.ts';
import { installHealth } from './health.ts';
import { installJsonBodyParser } from './json-body.ts';
import {
  type LogConfig,
  logDestination,
  loggerOptions,
  noteErrorCode,
  OneLinePerRequest,
  type RequestLogFields,
} from './logger.ts';
import { type HttpMetricsOptions, installMetrics } from './metrics.ts';
import { installLoadShedding, type SheddingOptions } from './load-shedding.ts';
import { installOpenApi, type OpenApiInfo } from './openapi.ts';
import { defaultDrainBounds, type DrainBounds, setDrainBounds } from './oversized-body.ts';
import { findReservedKey, reservedKeyMessage } from './safe-keys.ts';

export interface ServerOptions {
  readonly service: string;
  readonly log: LogConfig;
  readonly bodyLimitBytes: number;
  readonly openapi: OpenApiInfo;
  readonly errors: ErrorHandling;
  readonly ready: () => Promise<void>;
  /** Set false in tests that build many apps: process-level default metrics are costly. */
  readonly defaultMetrics?: boolean;
  /** Which routes the HTTP duration histogram times, and its buckets (metrics.ts). */
  readonly httpMetrics?: HttpMetricsOptions;
  /** A logger stream, for tests that assert on log output. */
  readonly logStream?: NodeJS.WritableStream;
  /** Fields the service adds to each request's completion log line. */
  readonly requestLogFields?: RequestLogFields;
  readonly fastify?: Partial<FastifyServerOptions>;
  /** Load shedding bounds (absent: none, as in the kit's own tests). */
  readonly shedding?: SheddingOptions;
  /** How much of a body over the limit is read after the 413 (default: `defaultDrainBounds`). */
  readonly oversizedBodyDrain?: DrainBounds;
}

export type App = FastifyInstance;

/**
 * The Fastify instance both services start from: TypeBox validation, request ids (honouring
 * an incoming X-Request-Id), redacted pino logs, metrics, health, OpenAPI and docs, and one
 * error handler. Routes are registered by the service after this returns.
 */
export async function createServer(options: ServerOptions): Promise<FastifyInstance> {
  const destination = options.logStream ? undefined : logDestination(options.log);
  const logger = {
    ...loggerOptions(options.log, options.service),
    stream: options.logStream ?? destination?.stream,
  };
  const app = Fastify({
    logger,
    bodyLimit: options.bodyLimitBytes,
    requestIdHeader: 'x-request-id',
    genReqId: () => randomUUID(),
    logController: new OneLinePerRequest(options.requestLogFields),
    return503OnClosing: true,
    frameworkErrors: (error, request, reply) => renderFrameworkError(options.errors, error, request, reply),
    ajv: {
      customOptions: {
        removeAdditional: false,
        coerceTypes: 'array',
        useDefaults: true,
        allErrors: false,
        // A documentation keyword some body schemas carry (named examples for /docs), never a
        // rule. Routes that must also build on a bare Fastify use `config.bodyExamples` instead.
        keywords: ['x-examples'],
      },
    },
    ...options.fastify,
  }).withTypeProvider<TypeBoxTypeProvider>();

  // The type provider only narrows route typings; the kit's installers take the plain instance.
  const instance = app as unknown as FastifyInstance;
  installJsonBodyParser(instance);
  setDrainBounds(instance, options.oversizedBodyDrain ?? defaultDrainBounds(options.bodyLimitBytes));
  requestIdAndQueryKeys(instance, options.errors);
  drainKeepAliveOnClose(app);
  // Lines still buffered in the asynchronous destination are written before the process exits.
  if (destination) app.addHook('onClose', async () => destination.flush());
  installErrorHandler(app, options.errors);
  await installOpenApi(app, options.openapi);
  installMetrics(app, {
    prefix: options.service,
    defaultMetrics: options.defaultMetrics ?? true,
    ...options.httpMetrics,
  });
  const shedding = options.shedding
    ? await installLoadShedding(instance, options.shedding, options.errors)
    : undefined;
  installHealth(app, async () => {
    // An instance that sheds is not ready: the load balancer drains it until it recovers.
    const pressure = shedding?.pressure();
    if (pressure !== undefined) throw new Error(`shedding load: ${pressure}`);
    await options.ready();
  });
  return instance;
}

/**
 * Errors Fastify raises before routing (a malformed percent-escape in the path, a path
 * parameter over the router's length limit) skip the error handler; without this they would be
 * answered in Fastify's own body, naming its internal codes, instead of the service's format.
 */
function renderFrameworkError(
  errors: ErrorHandling,
  error: FastifyError,
  request: FastifyRequest,
  reply: FastifyReply,
): void {
  const message =
    error.code === 'FST_ERR_MAX_PARAM_LENGTH'
      ? 'A segment of the request path is longer than any identifier of this service.'
      : 'The request path is not a valid URL: it contains a malformed percent-escape.';
  const appError = errors.fromFramework('bad_request', message, request);
  noteErrorCode(request, appError.code);
  reply.code(appError.status);
  void Promise.resolve(errors.render(appError, request, reply)).catch(() => reply.code(500).send());
}

/**
 * Echoes the request id, and refuses reserved query names: query strings parse into
 * null-prototype objects, but a service that nests `a[b]` keys (as Rails does) would walk into
 * Object.prototype with `__proto__[x]=1`; such names are refused here, before any route or hook
 * of a service sees them. One callback-style hook: no promise, one hook call per request.
 */
function requestIdAndQueryKeys(app: FastifyInstance, errors: ErrorHandling): void {
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id);
    const reserved = findReservedKey(request.query);
    if (reserved === undefined) done();
    else done(errors.fromFramework('bad_request', reservedKeyMessage(reserved), request));
  });
}

/**
 * server.close() closes the keep-alive connections that are idle at that moment only; a
 * connection whose request is still running (a long stream) would otherwise stay open after
 * its response until the keep-alive timeout and hold the process. Sweep idle ones until done.
 */
function drainKeepAliveOnClose(app: FastifyInstance): void {
  app.addHook('preClose', async () => {
    const server = app.server;
    const sweep = setInterval(() => server.closeIdleConnections(), 25);
    sweep.unref();
    server.once('close', () => clearInterval(sweep));
  });
}
