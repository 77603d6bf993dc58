/**
 * POST /v1/messages, top to bottom like the chat route: version -> authenticate -> resolve
 * model and options -> select provider and reserve budget (shared pipeline) -> translate ->
 * call upstream -> respond in Anthropic's JSON or event stream. How the call ends (settle or
 * release, router report) is decided by its CallOutcome, as on every front door.
 */
import { anthropicMessages } from '@app/provider-adapters';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RoutePlan } from '../../contracts.ts';
import { type FrontDoorDeps, resolveFallbackPlans, resolvePlan } from '../../pipeline/answer.ts';
import { appliedState } from '../../pipeline/applied.ts';
import { withoutFallbacks } from '../../pipeline/fallbacks.ts';
import { runCall } from '../../pipeline/run-call.ts';
import type { UpstreamCall } from '../../pipeline/upstream-call.ts';
import {
  betasOf,
  checkVersion,
  estimatePromptTokens,
  maxOutputTokens,
  messagesSource,
  needsOf,
  routingHeaders,
} from './inputs.ts';
import type { MessagesRequestBody } from './request-schema.ts';
import { respondJson } from './respond-json.ts';
import { respondStream } from './respond-stream.ts';

/**
 * Betas reach an upstream of Anthropic's API with the body; one of another API cannot take
 * them, so they are reported in X-Gateway-Ignored instead of vanishing.
 */
function reportUnsentBetas(request: FastifyRequest, call: UpstreamCall, betas: readonly string[]): void {
  if (betas.length === 0 || call.init.adapter.wireApi === anthropicMessages.ANTHROPIC_API) return;
  const applied = appliedState(request);
  const entry = `anthropic-beta=${betas.join(',')}`;
  // Once per request, whichever attempt (of several, after a failover) reports it.
  if (!applied.ignored?.includes(entry)) applied.ignored = [...(applied.ignored ?? []), entry];
}

export function messagesHandler(deps: FrontDoorDeps) {
  return async function messages(
    request: FastifyRequest,
    body: MessagesRequestBody,
    reply: FastifyReply,
  ): Promise<unknown> {
    checkVersion(request.headers);
    const principal = await deps.access.authenticate(request);

    const inputs = routingHeaders(request.headers, body);
    const plan = resolvePlan(deps.router, request, body.model, inputs);
    const fallbacks = resolveFallbackPlans(deps.router, request, plan, body.models, inputs);

    const betas = betasOf(request.headers);
    const input = {
      request,
      reply,
      plan,
      fallbacks,
      principal,
      needs: needsOf(body),
      promptTokens: estimatePromptTokens(body),
      outputTokens: (chosen: RoutePlan) => maxOutputTokens(body, chosen),
      source: messagesSource(withoutFallbacks(body), betas),
    };
    return runCall(deps, input, async (call) => {
      reportUnsentBetas(request, call, betas);
      if (body.stream !== true) return respondJson(call, request);
      const options = { keepAliveMs: deps.upstream.config.streamKeepAliveMs };
      return (await respondStream(call, options)) ? reply : undefined;
    });
  };
}
