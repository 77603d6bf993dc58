/**
 * POST /{version}/models/{model}:generateContent and :streamGenerateContent, top to bottom like
 * the other front doors: authenticate -> resolve the path's model and options -> select provider
 * and reserve budget (shared pipeline) -> translate (or forward the body to a Gemini upstream) ->
 * call upstream -> respond in Gemini's JSON, SSE or JSON-array stream. How the call ends
 * (settle or release, router report) is decided by its CallOutcome, as on every front door.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RoutePlan } from '../../contracts.ts';
import { type FrontDoorDeps, resolveFallbackPlans, resolvePlan } from '../../pipeline/answer.ts';
import { runCall } from '../../pipeline/run-call.ts';
import { GEMINI_TOKEN_SOURCES } from './token-sources.ts';
import {
  bodyOf,
  estimatePromptTokens,
  geminiSource,
  maxOutputTokens,
  needsOf,
  routingHeaders,
} from './inputs.ts';
import type { ModelCall, StreamFraming } from './path.ts';
import { respondJson } from './respond-json.ts';
import { respondStream } from './respond-stream.ts';

export interface GenerateInput {
  readonly call: ModelCall;
  readonly body: unknown;
  readonly framing: StreamFraming;
}

export function generateHandler(deps: FrontDoorDeps) {
  return async function generate(
    request: FastifyRequest,
    input: GenerateInput,
    reply: FastifyReply,
  ): Promise<unknown> {
    const principal = await deps.access.authenticate(request, GEMINI_TOKEN_SOURCES);
    const body = bodyOf(input.body);
    const stream = input.call.method === 'streamGenerateContent';
    const inputs = routingHeaders(request.headers, body);
    const plan = resolvePlan(deps.router, request, input.call.model, inputs);
    const prepared = {
      request,
      reply,
      plan,
      // Gemini's body has no list of models: the X-Gateway-Fallbacks header is the only one.
      fallbacks: resolveFallbackPlans(deps.router, request, plan, undefined, inputs),
      principal,
      needs: needsOf(body),
      promptTokens: estimatePromptTokens(body),
      outputTokens: (chosen: RoutePlan) => maxOutputTokens(body, chosen),
      source: geminiSource(body, stream),
    };
    return runCall(deps, prepared, async (call) => {
      if (!stream) return respondJson(call, request, body);
      const options = { keepAliveMs: deps.upstream.config.streamKeepAliveMs, framing: input.framing };
      return (await respondStream(call, body, options)) ? reply : undefined;
    });
  };
}
