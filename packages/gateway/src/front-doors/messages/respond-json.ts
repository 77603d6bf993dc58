/** `stream` absent or false: one Message (the call settled from its usage by the pipeline). */
import { anthropicMessages, type JsonObject, type ParsedResponse } from '@app/provider-adapters';
import type { FastifyRequest } from 'fastify';
import { withCost } from '../../pipeline/answer-cost.ts';
import type { UpstreamCall } from '../../pipeline/upstream-call.ts';

/** `msg_` + the gateway's request id: a Messages id for answers of other APIs. */
export function messageId(request: FastifyRequest): string {
  return `msg_${request.id.replace(/[^A-Za-z0-9]/g, '')}`;
}

export function encodeJson(
  { response, native }: ParsedResponse,
  call: UpstreamCall,
  _body: unknown,
  cost: number,
): JsonObject {
  const model = call.init.plan.model;
  if (native) return withCost({ ...native.body, model }, 'usage', cost);
  const id = messageId(call.init.reply.request);
  return withCost(anthropicMessages.encodeMessage(response, { id, model }), 'usage', cost);
}
