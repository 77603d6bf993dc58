/**
 * POST /v1/chat/completions, top to bottom: authenticate -> resolve model and options ->
 * select provider and reserve budget -> translate -> call upstream -> respond (JSON or SSE),
 * settling the ledger and reporting to the router as the call ends.
 */
import { isAppError } from '@app/http-kit';
import { findAdapter } from '@app/provider-adapters';
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify';
import type { AccessControl, Ledger, Principal, RoutePlan, Router, Selection } from '../contracts.ts';
import { gatewayErrors } from '../errors.ts';
import type { Upstream } from '../upstream/index.ts';
import { appliedState } from './applied.ts';
import { respondJson } from './complete.ts';
import { estimatePromptTokens, maxOutputTokens } from './estimate.ts';
import { adapterOptions, asChatRequest, isStream, needsOf, routingHeaders, wantsUsage } from './inputs.ts';
import { Meter } from './metering.ts';
import type { ChatRequestBody } from './request-schema.ts';
import { selectAndReserve } from './select-and-reserve.ts';
import { respondStream } from './stream.ts';
import { UpstreamCall } from './upstream-call.ts';

export interface HandlerDeps {
  readonly access: AccessControl;
  readonly ledger: Ledger;
  readonly router: Router;
  readonly upstream: Upstream;
  readonly log: FastifyBaseLogger;
  /** Ledger writes and router reports still running after their response was sent. */
  readonly pending: Set<Promise<unknown>>;
}

export function chatHandler(deps: HandlerDeps) {
  return async function chatCompletions(request: FastifyRequest, reply: FastifyReply): Promise<unknown> {
    const body = request.body as ChatRequestBody;
    const applied = appliedState(request);

    const principal = await deps.access.authenticate(request);

    const plan = deps.router.resolve(body.model, routingHeaders(request.headers, body));
    applied.model = plan.model;
    applied.options = plan.options;
    applied.ignored = plan.ignored;

    const { selection, meter } = await selectAndBudget(deps, request, body, plan, principal);

    const call = upstreamCall(deps, { request, reply, body, plan, selection, principal, meter });

    try {
      if (isStream(body)) {
        const options = {
          includeUsage: wantsUsage(body),
          keepAliveMs: deps.upstream.config.streamKeepAliveMs,
        };
        if (await respondStream(call, options)) return reply;
      } else {
        const completion = await respondJson(call);
        if (completion !== undefined) return completion;
      }
    } catch (error) {
      // Upstream failures arrive as AppErrors with the reservation already released; anything
      // else is a fault of the gateway itself, and the budget goes back (a no-op if settled).
      if (!isAppError(error)) meter.release('gateway error');
      throw error;
    }
    // The client has gone: there is no one to answer.
    reply.hijack();
    reply.raw.destroy();
    return undefined;
  };
}

/** Provider and reservation; each selection is recorded for X-Gateway-Applied as it is made. */
async function selectAndBudget(
  deps: HandlerDeps,
  request: FastifyRequest,
  body: ChatRequestBody,
  plan: RoutePlan,
  principal: Principal,
): Promise<{ selection: Selection; meter: Meter }> {
  const applied = appliedState(request);
  const promptTokens = estimatePromptTokens(body);
  const { selection, reservation } = await selectAndReserve(deps, {
    plan,
    principal,
    needs: needsOf(body),
    promptTokens,
    outputTokens: maxOutputTokens(body, plan),
    onSelected: (chosen) => {
      applied.provider = chosen.provider;
      applied.options = chosen.options;
    },
  });
  const meter = new Meter({
    ledger: deps.ledger,
    reservation,
    price: selection.price,
    model: plan.model,
    promptEstimate: promptTokens,
    log: request.log,
    pending: deps.pending,
  });
  return { selection, meter };
}

/** The upstream request, translated by the selected provider's adapter. */
function upstreamCall(
  deps: HandlerDeps,
  input: {
    request: FastifyRequest;
    reply: FastifyReply;
    body: ChatRequestBody;
    plan: RoutePlan;
    selection: Selection;
    principal: Principal;
    meter: Meter;
  },
): UpstreamCall {
  const { selection, meter } = input;
  const adapter = findAdapter(selection.target.adapter);
  if (!adapter) {
    meter.release('no adapter');
    throw gatewayErrors.create('internal', {});
  }
  return new UpstreamCall({
    ...deps,
    reply: input.reply,
    plan: input.plan,
    selection,
    principal: input.principal,
    meter,
    log: input.request.log,
    adapter,
    request: adapter.buildRequest({
      request: asChatRequest(input.body),
      upstreamModel: selection.target.upstreamModel,
      options: adapterOptions(selection),
    }),
  });
}
