/**
 * POST /{version}/models/{model}:countTokens: the prompt's tokens, free. Authentication and IP
 * rules apply, the model resolves as on generateContent, and the provider is selected and told
 * how the count went through the pipeline's CountCall; no budget is reserved and no rate limit
 * counted. The count is the upstream's own where it has a counter (both Gemini services), else
 * the gateway's estimate; `X-Gateway-Token-Count` says which, as on /v1/messages/count_tokens.
 */
import {
  AdapterRequestError,
  adapterFor,
  gemini,
  type JsonObject,
  tokenCounterFor,
} from '@app/provider-adapters';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { AccessControl, Router } from '../../contracts.ts';
import { gatewayErrors } from '../../errors.ts';
import { resolvePlan } from '../../pipeline/answer.ts';
import { appliedState } from '../../pipeline/applied.ts';
import { CountCall } from '../../pipeline/count-call.ts';
import type { Upstream } from '../../upstream/index.ts';
import { bodyOf, estimatePromptTokens, needsOf, routingHeaders } from './inputs.ts';
import { GEMINI_TOKEN_SOURCES } from './token-sources.ts';

export const COUNT_SOURCE_HEADER = 'x-gateway-token-count';

export interface CountDeps {
  readonly access: AccessControl;
  readonly router: Router;
  readonly upstream: Upstream;
  readonly pending: Set<Promise<unknown>>;
}

/** What the request asks to count, as a generateContent body (a 400 for a malformed one). */
function promptOf(body: JsonObject): JsonObject {
  try {
    return gemini.decodeCountTokensRequest(body);
  } catch (error) {
    if (!(error instanceof AdapterRequestError)) throw error;
    throw gatewayErrors.create('invalid_request', { reason: error.message });
  }
}

export function countTokensHandler(deps: CountDeps) {
  return async function countTokens(
    request: FastifyRequest,
    model: string,
    raw: unknown,
    reply: FastifyReply,
  ): Promise<unknown> {
    const applied = appliedState(request);
    const principal = await deps.access.authenticate(request, GEMINI_TOKEN_SOURCES);
    const prompt = promptOf(bodyOf(raw));
    const plan = resolvePlan(deps.router, request, model, routingHeaders(request.headers, prompt));
    const call = await CountCall.select(deps, { plan, principal, needs: needsOf(prompt), log: request.log });
    try {
      const target = call?.selection.target;
      // Only a counter of Gemini's API takes the prompt as sent (both Gemini services have one).
      const counter = target ? tokenCounterFor(target.adapter, gemini.GEMINI_API) : undefined;
      let count: number | undefined;
      if (call && target && counter) {
        applied.provider = call.selection.provider;
        applied.options = call.selection.options;
        const source = { api: gemini.GEMINI_API, body: prompt };
        count = await call.count(adapterFor(target.adapter), counter, request, source);
      }
      reply.header(COUNT_SOURCE_HEADER, count === undefined ? 'estimate' : 'upstream');
      return gemini.encodeCountTokensResponse(count ?? estimatePromptTokens(prompt));
    } finally {
      // A count that sent nothing (no counter, a refused body) holds no trial: a no-op once reported.
      call?.release();
    }
  };
}
