/** `:generateContent`: one GenerateContentResponse, settled from its usage. */
import { gemini, type JsonObject } from '@app/provider-adapters';
import type { FastifyRequest } from 'fastify';
import { completeJson } from '../../pipeline/complete-json.ts';
import type { UpstreamCall } from '../../pipeline/upstream-call.ts';

/** The gateway's request id as a responseId for answers of other APIs. */
export function responseId(request: FastifyRequest): string {
  return request.id.replace(/[^A-Za-z0-9]/g, '');
}

export function envelopeOf(call: UpstreamCall, body: JsonObject): gemini.GeminiEnvelope {
  return {
    modelVersion: call.init.plan.model,
    responseId: responseId(call.init.reply.request),
    includeThoughts: gemini.includesThoughts(body),
  };
}

/**
 * A Gemini upstream's own answer or chunk as the Developer API shows it: the model named as the
 * gateway resolved it, and without Vertex's `createTime` (no field of the Developer API's
 * GenerateContentResponse, which is the API this door serves).
 */
export function asDeveloperApi(body: JsonObject, model: string): JsonObject {
  const { createTime: _vertexOnly, ...rest } = body;
  return { ...rest, modelVersion: model };
}

/** Resolves to the answer to send, or undefined when the client has gone away. */
export async function respondJson(
  call: UpstreamCall,
  request: FastifyRequest,
  body: JsonObject,
): Promise<JsonObject | undefined> {
  const completed = await completeJson(call, request);
  if (!completed) return undefined;
  const { response, native } = completed;
  if (native) return asDeveloperApi(native.body, call.init.plan.model);
  return gemini.encodeGenerateContentResponse(response, envelopeOf(call, body));
}
