/**
 * POST /v1/responses, top to bottom like the other front doors: authenticate -> check what the
 * gateway cannot serve (stored responses) -> resolve model and options -> select provider and
 * reserve budget (shared pipeline) -> translate -> call upstream -> respond in the Responses
 * JSON or event stream. How the call ends (settle or release, router report) is decided by its
 * CallOutcome, as on every front door.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RoutePlan } from '../../contracts.ts';
import { type FrontDoorDeps, resolveFallbackPlans, resolvePlan } from '../../pipeline/answer.ts';
import { withoutFallbacks } from '../../pipeline/fallbacks.ts';
import { runCall } from '../../pipeline/run-call.ts';
import {
  checkBody,
  estimatePromptTokens,
  maxOutputTokens,
  needsOf,
  responsesSource,
  routingHeaders,
} from './inputs.ts';
import type { ResponsesRequestBody } from './request-schema.ts';
import { respondJson } from './respond-json.ts';
import { respondStream } from './respond-stream.ts';

export function responsesHandler(deps: FrontDoorDeps) {
  return async function responses(
    request: FastifyRequest,
    body: ResponsesRequestBody,
    reply: FastifyReply,
  ): Promise<unknown> {
    const principal = await deps.access.authenticate(request);
    checkBody(body);

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
      source: responsesSource(withoutFallbacks(body)),
    };

    return runCall(deps, input, async (call) => {
      if (body.stream !== true) return respondJson(call, request, body);
      const options = { keepAliveMs: deps.upstream.config.streamKeepAliveMs };
      return (await respondStream(call, body, options)) ? reply : undefined;
    });
  };
}
