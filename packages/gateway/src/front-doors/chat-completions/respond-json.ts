/** `stream` absent or false: one JSON completion, settled from its usage. */
import { type JsonObject, openAIChat } from '@app/provider-adapters';
import type { FastifyRequest } from 'fastify';
import { completeJson } from '../../pipeline/complete-json.ts';
import type { UpstreamCall } from '../../pipeline/upstream-call.ts';

/** Resolves to the completion to send, or undefined when the client has gone away. */
export async function respondJson(
  call: UpstreamCall,
  request: FastifyRequest,
): Promise<JsonObject | undefined> {
  const completed = await completeJson(call, request);
  if (!completed) return undefined;
  const { response, native } = completed;
  const model = call.init.plan.model;
  if (native) return { ...native.body, model };
  const envelope = {
    id: response.id || `chatcmpl-${request.id}`,
    model,
    created: Math.floor(Date.now() / 1000),
  };
  return openAIChat.encodeChatCompletion(response, envelope);
}
