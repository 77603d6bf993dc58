/**
 * POST /v1/chat/completions, top to bottom: authenticate -> resolve model and options ->
 * select provider and reserve budget -> translate -> call upstream -> respond (JSON or SSE).
 * How the call ends (settle or release, router report) is decided by its CallOutcome.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RoutePlan } from '../../contracts.ts';
import { gatewayErrors } from '../../errors.ts';
import { type FrontDoorDeps, resolveFallbackPlans, resolvePlan } from '../../pipeline/answer.ts';
import { withoutFallbacks } from '../../pipeline/fallbacks.ts';
import { runCall } from '../../pipeline/run-call.ts';
import { chatSource } from './decode.ts';
import { choicesOf, estimatePromptTokens, maxOutputTokens } from './estimate.ts';
import { isStream, needsOf, routingHeaders, wantsUsage } from './inputs.ts';
import type { ChatRequestBody } from './request-schema.ts';
import { respondJson } from './respond-json.ts';
import { respondStream } from './respond-stream.ts';

export function chatHandler(deps: FrontDoorDeps) {
  return async function chatCompletions(
    request: FastifyRequest,
    body: ChatRequestBody,
    reply: FastifyReply,
  ): Promise<unknown> {
    const principal = await deps.access.authenticate(request);
    refuseTooManyChoices(body, deps.upstream.config.maxChoices);

    const inputs = routingHeaders(request.headers, body);
    const plan = resolvePlan(deps.router, request, body.model, inputs);
    const fallbacks = resolveFallbackPlans(deps.router, request, plan, body.models, inputs);

    const input = {
      request,
      reply,
      plan,
      fallbacks,
      principal,
      needs: needsOf(body),
      promptTokens: estimatePromptTokens(body),
      outputTokens: (chosen: RoutePlan) => maxOutputTokens(body, chosen),
      source: chatSource(withoutFallbacks(body)),
    };

    return runCall(deps, input, async (call) => {
      if (!isStream(body)) return respondJson(call, request);
      const options = { includeUsage: wantsUsage(body), keepAliveMs: deps.upstream.config.streamKeepAliveMs };
      return (await respondStream(call, options)) ? reply : undefined;
    });
  };
}

/** Every completion asked for is reserved for; past the configured number, none is served. */
function refuseTooManyChoices(body: ChatRequestBody, max: number): void {
  if (choicesOf(body) <= max) return;
  const reason = `'n' is ${choicesOf(body)}; this gateway generates at most ${max} completions per request.`;
  throw gatewayErrors.create('invalid_request', { reason }, { param: 'n' });
}
