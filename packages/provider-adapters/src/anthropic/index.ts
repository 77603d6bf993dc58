/** Anthropic's Messages API (`POST /v1/messages`, API version 2023-06-01). */
import type { ProviderAdapter, ResponseContext } from '../adapter.ts';
import type { ParsedResponse } from '../model/response.ts';
import {
  ANTHROPIC_API,
  createMessagesStreamTranslator,
  decodeMessage,
} from '../wire/anthropic-messages/index.ts';
import { anthropicTokenCounter } from './count-tokens.ts';
import { mapAnthropicError } from './errors.ts';
import { buildAnthropicRequest } from './request.ts';

/** A Messages body in the internal model, plus the body itself for a client that speaks Messages. */
export function parseMessagesResponse(body: string, context: ResponseContext): ParsedResponse {
  const { response, json } = decodeMessage(body);
  return context.clientApi === ANTHROPIC_API
    ? { response, native: { api: ANTHROPIC_API, body: json } }
    : { response };
}

export const anthropicAdapter: ProviderAdapter = {
  id: 'anthropic',
  wireApi: ANTHROPIC_API,
  buildRequest: buildAnthropicRequest,
  parseResponse: parseMessagesResponse,
  createStreamTranslator: createMessagesStreamTranslator,
  mapError: mapAnthropicError,
  countTokens: anthropicTokenCounter,
};

export { ANTHROPIC_VERSION, messagesHeaders } from './request.ts';
export { mapAnthropicError } from './errors.ts';
