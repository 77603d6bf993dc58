/** `:generateContent`: one GenerateContentResponse, settled from its usage. */
import { gemini, type JsonObject, type ParsedResponse } from '@app/provider-adapters';
import type { FastifyRequest } from 'fastify';
import { bodyOf } from './inputs.ts';
import { withCost } from '../../pipeline/answer-cost.ts';
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

/** The answer of `:generateContent` (the descriptor's `encodeJson`). */
export function encodeJson(
  { response, native }: ParsedResponse,
  call: UpstreamCall,
  body: unknown,
  cost: number,
): JsonObject {
  const answer = native
    ? asDeveloperApi(native.body, call.init.plan.model)
    : gemini.encodeGenerateContentResponse(response, envelopeOf(call, bodyOf(body)));
  return withCost(answer, 'usageMetadata', cost);
}
