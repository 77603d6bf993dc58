import type { ProviderAdapter } from '../adapter.ts';
import { mapOpenAIError } from './errors.ts';
import { buildOpenAIRequest } from './request.ts';
import { parseOpenAIResponse } from './response.ts';
import { createOpenAIStreamTranslator } from './stream.ts';

/**
 * OpenAI Chat Completions and every server that speaks it (vLLM, Ollama, llama.cpp, the
 * simulator). An Azure-style adapter later reuses these functions with its own path and auth.
 */
export const openAICompatibleAdapter: ProviderAdapter = {
  id: 'openai-compatible',
  buildRequest: buildOpenAIRequest,
  parseResponse: parseOpenAIResponse,
  createStreamTranslator: createOpenAIStreamTranslator,
  mapError: mapOpenAIError,
};
