/**
 * The Responses API on OpenAI-API upstreams that have it (OpenAI, Azure v1): a Responses client's
 * body is forwarded as sent to `/responses` (same-API passthrough: reasoning items, encrypted
 * content, hosted tools and fields the gateway does not know all reach the upstream), and the
 * answer comes back as it came, metered from its usage. Clients of other APIs keep Chat
 * Completions. Local OpenAI-compatible servers often lack `/responses`, so their adapter does not
 * take this path and Responses clients are translated to Chat Completions for them.
 */
import {
  AdapterParseError,
  type BuildInput,
  type ProviderAdapter,
  type ResponseContext,
  type UpstreamHttpRequest,
} from '../adapter.ts';
import { parseJson } from '../json.ts';
import type { ParsedResponse } from '../model/response.ts';
import {
  createResponsesStreamTranslator,
  decodeResponse,
  isResponseObject,
  RESPONSES_API,
  responsesBody,
} from '../wire/openai-responses/index.ts';
import { openAIHeaders } from './request.ts';

export function parseResponsesAnswer(body: string): ParsedResponse {
  const parsed = parseJson(body);
  if (parsed === undefined) throw new AdapterParseError('the provider answered with a body that is not JSON');
  if (!isResponseObject(parsed)) throw new AdapterParseError('the provider answered without an output list');
  return { response: decodeResponse(parsed), native: { api: RESPONSES_API, body: parsed } };
}

interface ResponsesRoute {
  /** The upstream's `/responses` URL for this request. */
  url(input: BuildInput): string;
  /** The `model` the upstream expects (Azure: the deployment). */
  model(input: BuildInput): string;
}

/** `chat` plus the Responses passthrough at `route`. */
export function withResponses(chat: ProviderAdapter, route: ResponsesRoute): ProviderAdapter {
  const isResponses = (context: ResponseContext) => context.clientApi === RESPONSES_API;
  return {
    ...chat,
    buildRequest(input: BuildInput): UpstreamHttpRequest {
      if (input.source?.api !== RESPONSES_API) return chat.buildRequest(input);
      const body = responsesBody(input, input.source.body, route.model(input));
      return {
        method: 'POST',
        url: route.url(input),
        headers: openAIHeaders(body.stream === true),
        body: JSON.stringify(body),
      };
    },
    parseResponse: (body, context) =>
      isResponses(context) ? parseResponsesAnswer(body) : chat.parseResponse(body, context),
    createStreamTranslator: (context) =>
      isResponses(context) ? createResponsesStreamTranslator(context) : chat.createStreamTranslator(context),
  };
}
