/** `stream` absent or false: one Message, settled from its usage. */
import { anthropicMessages, type JsonObject } from '@app/provider-adapters';
import type { FastifyRequest } from 'fastify';
import { completeJson } from '../../pipeline/complete-json.ts';
import type { UpstreamCall } from '../../pipeline/upstream-call.ts';

/** `msg_` + the gateway's request id: a Messages id for answers of other APIs. */
export function messageId(request: FastifyRequest): string {
  return `msg_${request.id.replace(/[^A-Za-z0-9]/g, '')}`;
}

/** Resolves to the Message to send, or undefined when the client has gone away. */
export async function respondJson(
  call: UpstreamCall,
  request: FastifyRequest,
): Promise<JsonObject | undefined> {
  const completed = await completeJson(call, request);
  if (!completed) return undefined;
  const { response, native } = completed;
  const model = call.init.plan.model;
  if (native) return { ...native.body, model };
  return anthropicMessages.encodeMessage(response, { id: messageId(request), model });
}
