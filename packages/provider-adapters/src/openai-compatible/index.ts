import type { ProviderAdapter } from '../adapter.ts';
import { openAIBaseEmbeddings } from '../openai/embeddings.ts';
import { openAIChatAdapter } from '../openai/index.ts';

/**
 * Servers that speak OpenAI's API for local deployments (vLLM, Ollama, llama.cpp): OpenAI's
 * translation under its own id, so the catalog can say which upstream is which. Chat Completions
 * only (many have no `/responses`): Responses clients are translated to it.
 */
export const openAICompatibleAdapter: ProviderAdapter = {
  ...openAIChatAdapter,
  id: 'openai-compatible',
  embeddings: openAIBaseEmbeddings,
};
