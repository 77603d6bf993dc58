/**
 * POST /v1/responses as a front door: the Responses request read for routing and cost, its
 * response object or event stream written back. Errors keep the app's OpenAI envelope.
 */
import type { FastifyRequest } from 'fastify';
import type { RoutePlan } from '../../contracts.ts';
import { withoutFallbacks } from '../../pipeline/fallbacks.ts';
import type { DecodedCall, FrontDoor } from '../../pipeline/front-door.ts';
import { ChatHeadersSchema } from '../chat-completions/openapi.ts';
import {
  checkBody,
  estimatePromptTokens,
  maxOutputTokens,
  needsOf,
  responsesSource,
  routingHeaders,
} from './inputs.ts';
import { RESPONSES_DESCRIPTION, RESPONSES_EXAMPLES, RESPONSES_RESPONSES } from './openapi.ts';
import { type ResponsesRequestBody, ResponsesRequestSchema } from './request-schema.ts';
import { encodeJson } from './respond-json.ts';
import { responsesDialect } from './respond-stream.ts';

/** What the gateway cannot serve (stored responses) is refused before routing. */
function decode(request: FastifyRequest, body: ResponsesRequestBody): DecodedCall {
  checkBody(body);
  return {
    model: body.model,
    fallbackModels: body.models,
    inputs: routingHeaders(request.headers, body),
    needs: needsOf(body),
    promptTokens: estimatePromptTokens(body),
    outputTokens: (chosen: RoutePlan) => maxOutputTokens(body, chosen),
    source: responsesSource(withoutFallbacks(body)),
    stream: body.stream === true,
  };
}

export const responses: FrontDoor<ResponsesRequestBody> = {
  name: 'responses',
  routes: [
    {
      path: '/v1/responses',
      serves: 'call',
      schema: {
        tags: ['responses'],
        summary: 'Create a model response (OpenAI Responses API)',
        description: RESPONSES_DESCRIPTION,
        security: [{ bearerAuth: [] }],
        headers: ChatHeadersSchema,
        body: ResponsesRequestSchema,
        response: RESPONSES_RESPONSES,
      },
      config: { bodyExamples: RESPONSES_EXAMPLES },
    },
  ],
  decode,
  encodeJson,
  streamDialect: responsesDialect,
};
