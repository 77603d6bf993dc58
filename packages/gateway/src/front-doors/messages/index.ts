/**
 * /v1/messages as a front door (Anthropic's Messages API): version checked before
 * authentication, the request read for routing and cost, the Message or event stream written
 * back, `anthropic-beta` values an upstream of another API cannot take reported; its routes'
 * errors, unknown sub-paths included, in Anthropic's envelope with a `request-id` header
 * (Anthropic's SDKs read it; X-Request-Id is the kit's). POST /v1/messages/count_tokens counts
 * through the pipeline's token counting and answers `{input_tokens}`.
 */
import type { FastifyRequest } from 'fastify';
import type { RoutePlan } from '../../contracts.ts';
import { withoutFallbacks } from '../../pipeline/fallbacks.ts';
import type { DecodedCall, FrontDoor, Routed, TokenCounting } from '../../pipeline/front-door.ts';
import { renderAnthropicError } from './anthropic-errors.ts';
import {
  betasOf,
  checkVersion,
  estimatePromptTokens,
  maxOutputTokens,
  messagesSource,
  needsOf,
  reportUnsentBetas,
  routingHeaders,
} from './inputs.ts';
import {
  COUNT_DESCRIPTION,
  COUNT_EXAMPLES,
  COUNT_RESPONSES,
  MESSAGES_DESCRIPTION,
  MESSAGES_EXAMPLES,
  MESSAGES_RESPONSES,
  MessagesCreateHeadersSchema,
  MessagesHeadersSchema,
} from './openapi.ts';
import {
  type CountTokensRequestBody,
  CountTokensRequestSchema,
  type MessagesRequestBody,
  MessagesRequestSchema,
} from './request-schema.ts';
import { encodeJson } from './respond-json.ts';
import { messagesDialect } from './respond-stream.ts';

function decode(request: FastifyRequest, body: MessagesRequestBody): DecodedCall {
  const betas = betasOf(request.headers);
  return {
    model: body.model,
    fallbackModels: body.models,
    inputs: routingHeaders(request.headers, body),
    needs: needsOf(body),
    promptTokens: estimatePromptTokens(body),
    outputTokens: (chosen: RoutePlan) => maxOutputTokens(body, chosen),
    source: messagesSource(withoutFallbacks(body), betas),
    stream: body.stream === true,
    onAttempt: (call) => reportUnsentBetas(request, call, betas),
  };
}

const count: TokenCounting<CountTokensRequestBody> = {
  decode: (request, body): Routed => ({
    model: body.model,
    inputs: routingHeaders(request.headers, body),
    needs: needsOf(body),
    source: messagesSource(body, betasOf(request.headers)),
  }),
  estimate: estimatePromptTokens,
  answer: (tokens) => ({ input_tokens: tokens }),
};

const common = {
  tags: ['messages'],
  security: [{ bearerAuth: [] }],
  headers: MessagesHeadersSchema,
};

export const messages: FrontDoor<MessagesRequestBody, CountTokensRequestBody> = {
  name: 'messages',
  prefix: '/v1/messages',
  routes: [
    {
      // '' is the prefix itself: '/' would be listed in the OpenAPI document as /v1/messages/.
      path: '',
      serves: 'call',
      schema: {
        ...common,
        headers: MessagesCreateHeadersSchema,
        summary: 'Create a message (Anthropic Messages API)',
        description: MESSAGES_DESCRIPTION,
        body: { ...MessagesRequestSchema, 'x-examples': MESSAGES_EXAMPLES },
        response: MESSAGES_RESPONSES,
      },
    },
    {
      path: '/count_tokens',
      serves: 'count',
      schema: {
        ...common,
        summary: 'Count the input tokens of a message',
        description: COUNT_DESCRIPTION,
        body: { ...CountTokensRequestSchema, 'x-examples': COUNT_EXAMPLES },
        response: COUNT_RESPONSES,
      },
    },
  ],
  errors: { render: renderAnthropicError, requestIdHeader: 'request-id' },
  precheck: (request) => checkVersion(request.headers),
  decode,
  encodeJson,
  streamDialect: messagesDialect,
  count,
};
