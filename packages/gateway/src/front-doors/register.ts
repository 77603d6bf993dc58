/**
 * A front door's descriptor as Fastify routes: the door's error envelope installed in its scope
 * (unknown paths under its prefix included), its call routes on the generic call handler and
 * its count routes on the generic count handler, bodies sent as built with the gateway's headers.
 */
import { installErrorHandler } from '@app/http-kit';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { AccessControl, Ledger, ModelDirectory, RateLimiter, Router } from '../contracts.ts';
import { gatewayErrorFromFramework } from '../errors.ts';
import { pendingUntilClose, sendAsBuilt } from '../pipeline/answer.ts';
import { appliedHeadersHook } from '../pipeline/applied.ts';
import { countHandler } from '../pipeline/count-tokens.ts';
import {
  callHandler,
  type ErrorRendering,
  type FrontDoor,
  type OwnRoute,
  type OwnRouteDeps,
} from '../pipeline/front-door.ts';
import type { PipelineDeps } from '../pipeline/prepare-call.ts';
import type { GatewayTracing } from '../telemetry/index.ts';
import type { Upstream } from '../upstream/index.ts';

export interface FrontDoorsDeps {
  readonly access: AccessControl;
  readonly ledger: Ledger;
  readonly router: Router;
  readonly upstream: Upstream;
  readonly limiter: RateLimiter;
  /** Counts upstream usage figures beyond what a request could produce (a metric). */
  readonly onUsageAnomaly?: (provider: string) => void;
  /** `compressed` to a configured share of the prompt (calls and counts alike), and the work bound. */
  readonly compression?: PipelineDeps['compression'];
  /** The models a principal may call, for doors that list them (OwnRoute). */
  readonly models?: ModelDirectory;
  /** Spans of each call and count, when tracing is on (telemetry/tracing.ts). */
  readonly tracing?: GatewayTracing | undefined;
}

/** The door's errors in its own envelope: the kit's handler again in this scope, another renderer. */
function scopeErrors(app: FastifyInstance, errors: ErrorRendering): void {
  installErrorHandler(app, {
    fromFramework: (kind, message, request, param) =>
      gatewayErrorFromFramework(kind, message, request.method, request.url.split('?')[0] ?? '/', param),
    render: errors.render,
  });
  const header = errors.requestIdHeader;
  if (header === undefined) return;
  app.addHook('onRequest', async (request, reply) => {
    reply.header(header, request.id);
  });
}

function ownRoute(app: FastifyInstance, route: OwnRoute, deps: OwnRouteDeps): void {
  app.route({
    method: route.method,
    url: route.path,
    schema: route.schema,
    ...(route.constraints ? { constraints: route.constraints } : {}),
    ...(route.config ? { config: route.config } : {}),
    serializerCompiler: sendAsBuilt,
    handler: route.handler(deps),
  });
}

function routes<Body, CountBody>(door: FrontDoor<Body, CountBody>, deps: FrontDoorsDeps): FastifyPluginAsync {
  return async (app) => {
    if (door.errors) scopeErrors(app, door.errors);
    const pending = pendingUntilClose(app);
    const full = { ...deps, log: app.log, pending };
    const models = deps.models;
    for (const route of door.ownRoutes ?? []) {
      if (!models) throw new Error(`${door.name}: ${route.path} needs the model directory`);
      ownRoute(app, route, { ...full, models });
    }
    const call = callHandler(door, full);
    const count = door.count ? countHandler(door, door.count, full) : undefined;
    for (const route of door.routes) {
      if (route.serves === 'count' && !count)
        throw new Error(`${door.name}: ${route.path} counts without a counter`);
      const genAiOperation = route.serves === 'count' ? 'count_tokens' : (door.genAiOperation ?? 'chat');
      const traced = deps.tracing?.route(genAiOperation);
      app.route({
        method: route.method ?? 'POST',
        url: route.path,
        schema: route.schema,
        config: { ...route.config, genAiOperation },
        ...(route.constraints ? { constraints: route.constraints } : {}),
        serializerCompiler: sendAsBuilt,
        onSend: traced?.onSend ? [appliedHeadersHook, traced.onSend] : appliedHeadersHook,
        ...(traced ? { onResponse: traced.onResponse } : {}),
        handler:
          route.serves === 'count' && count
            ? (request, reply) => count(request, request.body as CountBody, reply)
            : (request, reply) => call(request, request.body as Body, reply),
      });
    }
  };
}

/** The door's routes, under its prefix when it has one. */
export function frontDoorRoutes<Body, CountBody>(
  door: FrontDoor<Body, CountBody>,
  deps: FrontDoorsDeps,
): FastifyPluginAsync {
  const plugin = routes(door, deps);
  const prefix = door.prefix;
  return async (app) => {
    // The router is the app's: doors sharing a strategy (the Gemini versions) add it once.
    for (const strategy of door.constraintStrategies ?? [])
      if (!app.hasConstraintStrategy(strategy.name)) app.addConstraintStrategy(strategy);
    await app.register(plugin, prefix === undefined ? {} : { prefix });
  };
}
