/**
 * Each door serves one kind of model: the chat doors chat models, /v1/embeddings embedding
 * models. A model of the other kind is refused once its name is resolved, before anything is
 * reserved, with the route that would serve it.
 */
import type { FastifyRequest } from 'fastify';
import type { ModelKind, RoutePlan } from '../contracts.ts';
import { gatewayErrors } from '../errors.ts';

const WHERE: Record<ModelKind, string> = {
  chat: 'send it to a chat route (POST /v1/chat/completions, /v1/messages, /v1/responses)',
  embedding: 'send it to POST /v1/embeddings',
};

/** Throws 400 `gateway_wrong_model_kind` when `plan` is not a model of `kind`. */
export function requireKind(
  plan: RoutePlan,
  kind: ModelKind,
  request: FastifyRequest,
  param = 'model',
): void {
  const actual = plan.kind ?? 'chat';
  if (actual === kind) return;
  const route = `${request.method} ${request.routeOptions.url ?? request.url.split('?')[0] ?? '/'}`;
  throw gatewayErrors.create(
    'gateway_wrong_model_kind',
    { model: plan.requested, kind: actual, route, use: WHERE[actual] },
    { param },
  );
}
