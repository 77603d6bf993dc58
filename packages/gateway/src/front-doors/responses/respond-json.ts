/** `stream` absent or false: one response object (the call settled from its usage by the pipeline). */
import { type JsonObject, openAIResponses, type ParsedResponse } from '@app/provider-adapters';
import type { FastifyRequest } from 'fastify';
import { withCost } from '../../pipeline/answer-cost.ts';
import type { UpstreamCall } from '../../pipeline/upstream-call.ts';
import type { ResponsesRequestBody } from './request-schema.ts';

/** `resp_` + the gateway's request id: a response id for answers of other APIs. */
export function responseId(request: FastifyRequest): string {
  return `resp_${request.id.replace(/[^A-Za-z0-9]/g, '')}`;
}

function numberOrNull(value: unknown): number | null {
  return typeof value === 'number' ? value : null;
}

/**
 * The envelope of an encoded answer: its id, the gateway's model, and what OpenAI's response
 * object echoes from the request (tools, tool_choice, instructions, temperature, top_p).
 */
export function responseEnvelope(
  request: FastifyRequest,
  body: ResponsesRequestBody,
  model: string,
): openAIResponses.ResponseEnvelope {
  return {
    id: responseId(request),
    model,
    createdAt: Math.floor(Date.now() / 1000),
    tools: body.tools,
    toolChoice: body.tool_choice,
    instructions: body.instructions ?? null,
    // Read from the open body: the gateway does not check them, the upstream does.
    temperature: numberOrNull((body as Record<string, unknown>).temperature),
    topP: numberOrNull((body as Record<string, unknown>).top_p),
  };
}

export function encodeJson(
  { response, native }: ParsedResponse,
  call: UpstreamCall,
  body: ResponsesRequestBody,
  cost: number,
): JsonObject {
  const model = call.init.plan.model;
  if (native) return withCost({ ...openAIResponses.withCacheWriteTokens(native.body), model }, 'usage', cost);
  const envelope = responseEnvelope(call.init.reply.request, body, model);
  return withCost(openAIResponses.encodeResponse(response, envelope), 'usage', cost);
}
