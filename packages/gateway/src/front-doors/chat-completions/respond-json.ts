/** `stream` absent or false: one JSON completion (the call settled from its usage by the pipeline). */
import { type JsonObject, openAIChat, type ParsedResponse } from '@app/provider-adapters';
import { withCost } from '../../pipeline/answer-cost.ts';
import type { UpstreamCall } from '../../pipeline/upstream-call.ts';

export function encodeJson(
  { response, native }: ParsedResponse,
  call: UpstreamCall,
  _body: unknown,
  cost: number,
): JsonObject {
  const model = call.init.plan.model;
  if (native) return withCost({ ...native.body, model }, 'usage', cost);
  const envelope = {
    id: response.id || `chatcmpl-${call.init.reply.request.id}`,
    model,
    created: Math.floor(Date.now() / 1000),
  };
  return withCost(openAIChat.encodeChatCompletion(response, envelope), 'usage', cost);
}
