/**
 * A front door's descriptor as Fastify routes: the door's error envelope installed in its scope
 * (unknown paths under its prefix included), its call routes on the generic call handler and
 * its count routes on the generic count handler, bodies sent as built with the gateway's headers.
 */
import { installErrorHandler } from '@app/http-kit';
import type { FastifyInstance, FastifyPluginAsync } from 'fastify';
import type { AccessControl, Ledger, RateLimiter, Router } from '../contracts.ts';
import { gatewayErrorFromFramework } from '../errors.ts';
import { pendingUntilClose, sendAsBuilt } from '../pipeline/answer.ts';
import { appliedHeadersHook } from '../pipeline/applied.ts';
import { countHandler } from '../pipeline/count-tokens.ts';
import { callHandler, type ErrorRendering, type FrontDoor } from '../pipeline/front-door.ts';
import type { PipelineDeps } from '../pipeline/prepare-call.ts';
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

function routes<Body, CountBody>(door: FrontDoor<Body, CountBody>, deps: FrontDoorsDeps): FastifyPluginAsync {
  return async (app) => {
    if (door.errors) scopeErrors(app, door.errors);
    const pending = pendingUntilClose(app);
    const full = { ...deps, log: app.log, pending };
    const call = callHandler(door, full);
    const count = door.count ? countHandler(door, door.count, full) : undefined;
    for (const route of door.routes) {
      if (route.serves === 'count' && !count)
        throw new Error(`${door.name}: ${route.path} counts without a counter`);
      app.route({
        method: route.method ?? 'POST',
        url: route.path,
        schema: route.schema,
        ...(route.config ? { config: route.config } : {}),
        serializerCompiler: sendAsBuilt,
        onSend: appliedHeadersHook,
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
  if (door.prefix === undefined) return plugin;
  const prefix = door.prefix;
  return async (app) => {
    await app.register(plugin, { prefix });
  };
}
