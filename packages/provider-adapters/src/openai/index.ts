import type { ProviderAdapter } from '../adapter.ts';
import { mapOpenAIError } from './errors.ts';
import { buildOpenAIRequest } from './request.ts';
import { parseOpenAIResponse } from './response.ts';
import { createOpenAIStreamTranslator } from './stream.ts';

/** OpenAI Chat Completions (`https://api.openai.com/v1`; the signer adds the Bearer key). */
export const openAIAdapter: ProviderAdapter = {
  id: 'openai',
  wireApi: 'openai-chat',
  buildRequest: buildOpenAIRequest,
  parseResponse: parseOpenAIResponse,
  createStreamTranslator: createOpenAIStreamTranslator,
  mapError: mapOpenAIError,
};
