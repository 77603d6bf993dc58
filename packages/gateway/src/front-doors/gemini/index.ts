/**
 * Gemini's API (what `@google/genai` and Gemini CLI speak), under `/v1beta` and `/v1`:
 * `POST /{version}/models/{model}:{generateContent|streamGenerateContent|countTokens}` and
 * `GET /{version}/models[/{model}]`. One descriptor per version (each its own prefix and error
 * scope). Errors answer in Google's envelope. The token comes as `x-goog-api-key`, `?key=` or
 * `Authorization: Bearer` (GEMINI_TOKEN_SOURCES); no other front door reads the first two.
 */
import type { AppError } from '@app/http-kit';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { RoutePlan } from '../../contracts.ts';
import { renderGatewayError } from '../../error-format.ts';
import type { DecodedCall, FrontDoor, FrontDoorRoute } from '../../pipeline/front-door.ts';
import { GEMINI_METHOD, geminiClientStrategy, geminiMethodStrategy, isGeminiClient } from './client-shape.ts';
import { geminiCount } from './count-tokens.ts';
import { renderGoogleError } from './google-errors.ts';
import {
  bodyOf,
  estimatePromptTokens,
  geminiSource,
  maxOutputTokens,
  needsOf,
  routingHeaders,
} from './inputs.ts';
import {
  CALL_RESPONSES,
  CallParamsSchema,
  CallQuerySchema,
  COUNT_EXAMPLES,
  CountHeadersSchema,
  GEMINI_SECURITY,
  GenerateHeadersSchema,
  GENERATE_EXAMPLES,
  METHOD_DOCS,
} from './openapi.ts';
import { modelRoutes, unknownMethodRoute } from './own-routes.ts';
import {
  GEMINI_METHODS,
  type GeminiMethod,
  type GeminiVersion,
  modelCallOfUrl,
  streamFraming,
} from './path.ts';
import { CountTokensSchema, GenerateContentSchema } from './request-schema.ts';
import { encodeJson } from './respond-json.ts';
import { streamDialect } from './respond-stream.ts';
import { GEMINI_TOKEN_SOURCES } from './token-sources.ts';

type Renderer = (error: AppError, request: FastifyRequest, reply: FastifyReply) => FastifyReply;

/**
 * Under `/v1/models` OpenAI's clients keep OpenAI's envelope for what matches no route (their
 * own routes there are the routing area's); a Gemini client, or a POST (a Gemini method call),
 * gets Google's.
 */
const renderUnderV1: Renderer = (error, request, reply) =>
  request.method === 'POST' || isGeminiClient(request.headers, request.url)
    ? renderGoogleError(error, request, reply)
    : renderGatewayError(error, request, reply);

/** The path and the query's `alt` are read before authentication (a 404 or 400 comes first). */
function precheck(request: FastifyRequest): void {
  const call = modelCallOfUrl(request.url);
  if (call.method !== 'countTokens') streamFraming((request.query as { readonly alt?: string }).alt);
}

/** generateContent and streamGenerateContent; Gemini's body has no list of models. */
function decode(request: FastifyRequest, raw: unknown): DecodedCall {
  const body = bodyOf(raw);
  const call = modelCallOfUrl(request.url);
  const stream = call.method === 'streamGenerateContent';
  return {
    model: call.model,
    // The X-Gateway-Fallbacks header is the only list of fallbacks.
    fallbackModels: undefined,
    inputs: routingHeaders(request.headers, body),
    needs: needsOf(body),
    promptTokens: estimatePromptTokens(body),
    outputTokens: (chosen: RoutePlan) => maxOutputTokens(body, chosen),
    source: geminiSource(body, stream),
    stream,
  };
}

/** How the OpenAPI document shows a method's wildcard route: its path with `{model}`. */
function documentedAs(version: GeminiVersion, method: GeminiMethod) {
  return ({ schema }: { schema: unknown }) => ({
    schema: { ...(schema as object), params: CallParamsSchema },
    // `::` is a literal colon to the OpenAPI generator (a single one starts a parameter).
    url: `/${version}/models/{model}::${method}`,
  });
}

/**
 * `POST /{version}/models/*`, one route per method (the method constraint reads the text after
 * the last `:`), each documented as `/{version}/models/{model}:{method}`.
 */
function methodRoute(version: GeminiVersion, base: string, method: GeminiMethod): FrontDoorRoute {
  const counts = method === 'countTokens';
  const schema = counts ? CountTokensSchema : GenerateContentSchema;
  return {
    path: `${base}/*`,
    serves: counts ? 'count' : 'call',
    constraints: { [GEMINI_METHOD]: method },
    config: { swaggerTransform: documentedAs(version, method) },
    schema: {
      tags: ['gemini'],
      security: GEMINI_SECURITY,
      ...METHOD_DOCS[method],
      headers: counts ? CountHeadersSchema : GenerateHeadersSchema,
      querystring: CallQuerySchema,
      body: { ...schema, 'x-examples': counts ? COUNT_EXAMPLES : GENERATE_EXAMPLES },
      response: CALL_RESPONSES[method],
    },
  };
}

function geminiDoor(version: GeminiVersion, prefix: string, base: string, render: Renderer): FrontDoor {
  return {
    name: `gemini-${version}`,
    genAiOperation: 'generate_content',
    prefix,
    routes: GEMINI_METHODS.map((method) => methodRoute(version, base, method)),
    ownRoutes: [...modelRoutes(version, base), unknownMethodRoute(base)],
    constraintStrategies: [geminiClientStrategy, geminiMethodStrategy],
    tokenSources: GEMINI_TOKEN_SOURCES,
    errors: { render },
    precheck,
    decode,
    encodeJson,
    streamDialect,
    count: geminiCount,
  };
}

/** Everything under /v1beta is Gemini's: unknown paths too answer in Google's envelope. */
export const geminiV1beta = geminiDoor('v1beta', '/v1beta', '/models', renderGoogleError);

// '' is the prefix itself: '/' would be listed in the OpenAPI document as /v1/models/.
export const geminiV1 = geminiDoor('v1', '/v1/models', '', renderUnderV1);
