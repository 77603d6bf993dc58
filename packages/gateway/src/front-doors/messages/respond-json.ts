/** `stream` absent or false: one Message (the call settled from its usage by the pipeline). */
import { anthropicMessages, type JsonObject, type ParsedResponse } from '@app/provider-adapters';
import type { FastifyRequest } from 'fastify';
import type { UpstreamCall } from '../../pipeline/upstream-call.ts';

/** `msg_` + the gateway's request id: a Messages id for answers of other APIs. */
export function messageId(request: FastifyRequest): string {
  return `msg_${request.id.replace(/[^A-Za-z0-9]/g, '')}`;
}

export function encodeJson({ response, native }: ParsedResponse, call: UpstreamCall): JsonObject {
  const model = call.init.plan.model;
  if (native) return { ...native.body, model };
  return anthropicMessages.encodeMessage(response, { id: messageId(call.init.reply.request), model });
}
