/** The two ends of a front door's handler that every client API shares. */
import { isAppError } from '@app/http-kit';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AccessControl, ModelKind, RoutePlan, Router } from '../contracts.ts';
import { appliedState } from './applied.ts';
import { callContext } from './call-context.ts';
import { distinctFallbacks, FALLBACKS_HEADER, ignoredFallbackInputs, resolveFallbacks } from './fallbacks.ts';
import { requireKind } from './model-kind.ts';
import type { PipelineDeps } from './prepare-call.ts';
import type { UpstreamCall } from './upstream-call.ts';

/** What a front door's handler needs: the pipeline's dependencies and authentication. */
export interface FrontDoorDeps extends PipelineDeps {
  readonly access: AccessControl;
  readonly log: FastifyBaseLogger;
}

/**
 * Resolves the model name and options, recording them for X-Gateway-Applied and -Ignored. A
 * model of another kind than the door serves is a 400.
 */
export function resolvePlan(
  router: Router,
  request: FastifyRequest,
  model: string,
  inputs: Readonly<Record<string, string | string[] | undefined>>,
  kind: ModelKind = 'chat',
): RoutePlan {
  const plan = router.resolve(model, inputs);
  requireKind(plan, kind, request);
  const context = callContext(request);
  if (plan.session !== undefined) context.facts.session = plan.session;
  const applied = context.applied;
  applied.model = plan.model;
  applied.options = plan.options;
  applied.ignored = plan.ignored;
  applied.lifecycle = plan.lifecycleHeaders;
  return plan;
}

/**
 * Resolves the client's fallback list (body `models`, else X-Gateway-Fallbacks) with the
 * primary's header inputs, before anything is reserved; repeats of an earlier attempt are
 * dropped, and they and an overridden header are reported in X-Gateway-Ignored.
 */
const NO_FALLBACKS: readonly RoutePlan[] = [];

export function resolveFallbackPlans(
  router: Router,
  request: FastifyRequest,
  primary: RoutePlan,
  models: readonly string[] | undefined,
  inputs: Readonly<Record<string, string | string[] | undefined>>,
): readonly RoutePlan[] {
  // Almost every request names no fallback: nothing to resolve, compare or report.
  if (models === undefined && request.headers[FALLBACKS_HEADER] === undefined) return NO_FALLBACKS;
  const resolved = resolveFallbacks(router, models, request.headers, inputs);
  for (const plan of resolved) requireKind(plan, primary.kind ?? 'chat', request, 'models');
  const { kept, dropped } = distinctFallbacks(primary, resolved);
  const ignored = ignoredFallbackInputs(models, request.headers, dropped);
  if (ignored.length > 0) {
    const applied = appliedState(request);
    applied.ignored = [...(applied.ignored ?? []), ...ignored];
  }
  return kept;
}

/**
 * Runs the front door's responder: its answer (a body, or the reply once a stream is
 * committed), or nothing when the client has gone, in which case the connection is dropped.
 */
export async function answerCall(
  call: UpstreamCall,
  reply: FastifyReply,
  respond: () => Promise<unknown>,
): Promise<unknown> {
  let answer: unknown;
  try {
    answer = await respond();
  } catch (error) {
    // Upstream failures arrive as AppErrors with the call already ended; anything else is a
    // fault of the gateway itself, and the budget goes back (a no-op once ended).
    if (!isAppError(error)) call.init.outcome.gatewayFault();
    throw error;
  }
  if (answer !== undefined) return answer;
  // The client has gone: there is no one to answer.
  reply.hijack();
  reply.raw.destroy();
  return undefined;
}

/**
 * The work a front door leaves running after its answers (ledger writes, router reports), which
 * the app waits for when it closes, so nothing is lost before the database closes.
 */
export function pendingUntilClose(app: FastifyInstance): Set<Promise<unknown>> {
  const pending = new Set<Promise<unknown>>();
  app.addHook('onClose', async () => {
    while (pending.size > 0) await Promise.allSettled([...pending]);
  });
  return pending;
}

/** Bodies are sent as the handler built them: a route's response schemas document, never reshape. */
export const sendAsBuilt = () => (payload: unknown) =>
  typeof payload === 'string' ? payload : JSON.stringify(payload);
