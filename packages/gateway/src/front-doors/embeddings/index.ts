/**
 * POST /v1/embeddings: OpenAI's embeddings request, answered from the embedding model's
 * providers through the same stages as every model call (authentication, model resolution,
 * selection with stickiness and circuits, reservation, rate limits, failover, settlement, the
 * ledger row and the log line). What differs is the upstream call: the adapter's embeddings
 * translator builds one or more requests (a batch split as the upstream takes it), and their
 * answers are joined in input order.
 */
import {
  AdapterRequestError,
  type EmbeddingsRequest,
  type EmbeddingsTranslator,
  encodeOpenAIEmbeddings,
  type ProviderAdapter,
} from '@app/provider-adapters';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { RoutePlan } from '../../contracts.ts';
import {
  type FrontDoorDeps,
  pendingUntilClose,
  resolveFallbackPlans,
  resolvePlan,
  sendAsBuilt,
} from '../../pipeline/answer.ts';
import { COST_HEADER, requestCostMicros, usdDecimal, usdOf } from '../../pipeline/answer-cost.ts';
import { appliedHeadersHook } from '../../pipeline/applied.ts';
import type { OwnRequests } from '../../pipeline/prepare-call.ts';
import { runCall } from '../../pipeline/run-call.ts';
import type { FrontDoorsDeps } from '../register.ts';
import { completeEmbeddings } from './complete.ts';
import { embeddingsRequest, estimateInputTokens } from './inputs.ts';
import {
  DESCRIPTION,
  EMBEDDINGS_EXAMPLES,
  EMBEDDINGS_RESPONSES,
  EmbeddingsHeadersSchema,
} from './openapi.ts';
import { type EmbeddingsRequestBody, EmbeddingsRequestSchema } from './request-schema.ts';

const NO_NEEDS = { tools: false, webSearch: false } as const;

/** The catalog checks that every embedding offer's adapter has one (routing/upstreams.ts). */
function translatorOf(adapter: ProviderAdapter): EmbeddingsTranslator {
  if (adapter.embeddings) return adapter.embeddings;
  throw new AdapterRequestError('the selected upstream has no embeddings API');
}

/**
 * The request for each model entry (the primary and the client's fallbacks), each checked
 * against its own model's limits before anything is reserved.
 */
function requestsFor(plans: readonly RoutePlan[], body: EmbeddingsRequestBody) {
  const byModel = new Map<string, EmbeddingsRequest>();
  for (const plan of plans)
    if (!byModel.has(plan.model)) byModel.set(plan.model, embeddingsRequest(plan, body));
  return (plan: RoutePlan) => byModel.get(plan.model) ?? embeddingsRequest(plan, body);
}

async function embeddingsCall(
  deps: FrontDoorDeps,
  request: FastifyRequest,
  body: EmbeddingsRequestBody,
  reply: FastifyReply,
): Promise<unknown> {
  const principal = await deps.access.authenticate(request);
  const inputs = request.headers;
  const plan = resolvePlan(deps.router, request, body.model, inputs, 'embedding');
  const fallbacks = resolveFallbackPlans(deps.router, request, plan, body.models, inputs);
  const requestOf = requestsFor([plan, ...fallbacks], body);
  const source: OwnRequests = {
    // OpenAI's API family; nothing of a chat answer is parsed for it.
    api: 'openai-chat',
    build: (selection, adapter, entry) =>
      translatorOf(adapter).buildRequests(requestOf(entry), {
        upstreamModel: selection.target.offer.upstreamModel,
        endpoint: selection.target.endpoint,
      }),
  };
  const promptTokens = estimateInputTokens(requestOf(plan).inputs);
  const input = { request, reply, plan, fallbacks, principal, needs: NO_NEEDS, promptTokens, source };
  return runCall(deps, { ...input, outputTokens: () => 0 }, async (call) => {
    const asked = requestOf(call.init.plan);
    const result = await completeEmbeddings(call, translatorOf(call.init.adapter), asked);
    if (result === undefined) return undefined;
    const micros = requestCostMicros(call);
    reply.header(COST_HEADER, usdDecimal(micros));
    reply.type('application/json; charset=utf-8');
    const envelope = { model: call.init.plan.model, encoding: asked.encoding, cost: usdOf(micros) };
    return encodeOpenAIEmbeddings(result, envelope);
  });
}

export function embeddingsRoutes(deps: FrontDoorsDeps): FastifyPluginAsync {
  return async (app) => {
    const full: FrontDoorDeps = { ...deps, log: app.log, pending: pendingUntilClose(app) };
    const traced = deps.tracing?.route('embeddings');
    app.route({
      method: 'POST',
      url: '/v1/embeddings',
      schema: {
        tags: ['embeddings'],
        summary: 'Create embeddings',
        description: DESCRIPTION,
        security: [{ bearerAuth: [] }],
        headers: EmbeddingsHeadersSchema,
        body: EmbeddingsRequestSchema,
        response: EMBEDDINGS_RESPONSES,
      },
      config: { bodyExamples: EMBEDDINGS_EXAMPLES, genAiOperation: 'embeddings' },
      serializerCompiler: sendAsBuilt,
      onSend: traced?.onSend ? [appliedHeadersHook, traced.onSend] : appliedHeadersHook,
      ...(traced ? { onResponse: traced.onResponse } : {}),
      handler: (request, reply) =>
        embeddingsCall(full, request, request.body as EmbeddingsRequestBody, reply),
    });
  };
}
