import type { ProviderAdapter } from '../adapter.ts';
import { openAIAdapter } from '../openai/index.ts';

/**
 * Servers that speak OpenAI's API for local deployments (vLLM, Ollama, llama.cpp): OpenAI's
 * translation under its own id, so the catalog can say which upstream is which.
 */
export const openAICompatibleAdapter: ProviderAdapter = { ...openAIAdapter, id: 'openai-compatible' };
