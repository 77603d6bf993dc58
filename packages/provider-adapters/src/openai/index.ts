import type { ProviderAdapter } from '../adapter.ts';
import { openAIBaseEmbeddings } from './embeddings.ts';
import { mapOpenAIError } from './errors.ts';
import { buildOpenAIRequest } from './request.ts';
import { parseOpenAIResponse } from './response.ts';
import { withResponses } from './responses.ts';
import { createOpenAIStreamTranslator } from './stream.ts';

/** Chat Completions only: servers of OpenAI's API (see openai-compatible). */
export const openAIChatAdapter: ProviderAdapter = {
  id: 'openai',
  wireApi: 'openai-chat',
  buildRequest: buildOpenAIRequest,
  parseResponse: parseOpenAIResponse,
  createStreamTranslator: createOpenAIStreamTranslator,
  mapError: mapOpenAIError,
};

/**
 * OpenAI (`https://api.openai.com/v1`; the signer adds the Bearer key): Chat Completions, and
 * `/responses` for Responses clients (same-API passthrough).
 */
export const openAIAdapter: ProviderAdapter = {
  ...withResponses(openAIChatAdapter, {
    url: (input) => `${input.endpoint.baseUrl}/responses`,
    model: (input) => input.offer.upstreamModel,
  }),
  embeddings: openAIBaseEmbeddings,
};
