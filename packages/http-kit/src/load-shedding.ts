/**
 * Load shedding: an instance under pressure answers 503 with Retry-After at once, in the
 * service's own error format, instead of stalling every request it holds; `/readyz` says so,
 * so a load balancer drains it. Pressure is event-loop delay or heap (sampled by
 * @fastify/under-pressure) or requests in flight over a bound (counted here: under-pressure
 * has no such gauge). Liveness, readiness and metrics are never shed.
 */
import underPressure from '@fastify/under-pressure';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { type Static, Type } from 'typebox';
import type { EnvMapping } from './config.ts';
import type { ErrorHandling } from './error-handler.ts';
import { AppError } from './errors.ts';

/** The `shedding` section of a service's configuration; `maxInFlight` defaults per service. */
export function sheddingConfigSchema(defaults: { maxInFlight: number }) {
  return Type.Object(
    {
      maxEventLoopDelayMs: Type.Integer({
        minimum: 0,
        default: 0,
        description:
          'Shed requests (503) while the mean event-loop delay is above this, ms (0: never; 1000 suits most deployments)',
      }),
      maxHeapUsedBytes: Type.Integer({
        minimum: 0,
        default: 0,
        description: 'Shed requests while the heap in use is above this, bytes (0: never)',
      }),
      maxInFlight: Type.Integer({
        minimum: 0,
        default: defaults.maxInFlight,
        description: 'Shed new requests while this many are being handled, streams included (0: no bound)',
      }),
      retryAfterSeconds: Type.Integer({
        minimum: 1,
        default: 5,
        description: 'Retry-After of a shed request',
      }),
    },
    { additionalProperties: false, default: {} },
  );
}

export type SheddingOptions = Static<ReturnType<typeof sheddingConfigSchema>>;

/** Config path -> environment variable, e.g. `shedding.maxInFlight` -> `GATEWAY_SHED_MAX_IN_FLIGHT`. */
export function sheddingEnv(prefix: string): EnvMapping {
  return {
    'shedding.maxEventLoopDelayMs': `${prefix}_SHED_EVENT_LOOP_DELAY_MS`,
    'shedding.maxHeapUsedBytes': `${prefix}_SHED_HEAP_USED_BYTES`,
    'shedding.maxInFlight': `${prefix}_SHED_MAX_IN_FLIGHT`,
    'shedding.retryAfterSeconds': `${prefix}_SHED_RETRY_AFTER_SECONDS`,
  };
}

const NEVER_SHED = new Set(['/healthz', '/readyz', '/metrics']);
const SAMPLE_MS = 100;

export interface Shedding {
  /** Why the instance is shedding now, or undefined (for /readyz). */
  pressure(): string | undefined;
}

/** By route pattern (known in onRequest): no string split per request. */
function exempt(request: FastifyRequest): boolean {
  const route = request.routeOptions.url;
  return route !== undefined && NEVER_SHED.has(route);
}

export async function installLoadShedding(
  app: FastifyInstance,
  options: SheddingOptions,
  errors: ErrorHandling,
): Promise<Shedding> {
  let inFlight = 0;
  const overloaded = (request: FastifyRequest, reason: string): AppError => {
    const message = `The service is overloaded (${reason}); retry after ${options.retryAfterSeconds} s.`;
    const base = errors.fromFramework('overloaded', message, request);
    const headers = { ...base.headers, 'retry-after': String(options.retryAfterSeconds) };
    return new AppError({ ...base, message: base.message, headers });
  };
  // under-pressure samples the event loop and adds a hook to every request; without a bound
  // on delay or heap it has nothing to decide, so it is not installed.
  const sampled = options.maxEventLoopDelayMs > 0 || options.maxHeapUsedBytes > 0;
  if (sampled)
    await app.register(underPressure, {
      maxEventLoopDelay: options.maxEventLoopDelayMs,
      maxHeapUsedBytes: options.maxHeapUsedBytes,
      sampleInterval: SAMPLE_MS,
      retryAfter: options.retryAfterSeconds,
      // Returning nothing lets the request through; a thrown error goes to the error handler.
      pressureHandler: (request, _reply, type) => {
        if (exempt(request)) return undefined;
        throw overloaded(request, type === 'eventLoopDelay' ? 'event-loop delay' : 'memory');
      },
    });
  if (options.maxInFlight > 0)
    app.addHook('onRequest', (request, reply, done) => {
      if (exempt(request)) return done();
      if (inFlight >= options.maxInFlight) return done(overloaded(request, 'requests in flight'));
      inFlight++;
      // The response's `close` fires once it is finished or its connection is gone: streams included.
      reply.raw.once('close', () => inFlight--);
      done();
    });
  return {
    pressure: () => {
      if (sampled && app.isUnderPressure()) return 'event-loop delay or memory over its bound';
      if (options.maxInFlight > 0 && inFlight >= options.maxInFlight)
        return 'requests in flight at the bound';
      return undefined;
    },
  };
}
