import type { AdapterId, ProviderAdapter } from './adapter.ts';
import { anthropicAdapter } from './anthropic/index.ts';
import { azureOpenAIAdapter } from './azure-openai/index.ts';
import { bedrockConverseAdapter } from './bedrock-converse/index.ts';
import { geminiAdapter } from './gemini/index.ts';
import { openAIAdapter } from './openai/index.ts';
import { openAICompatibleAdapter } from './openai-compatible/index.ts';
import { vertexClaudeAdapter } from './vertex-claude/index.ts';
import { vertexGeminiAdapter } from './vertex-gemini/index.ts';

/**
 * Every adapter by id. Adding an upstream API: its folder, its id in ADAPTER_IDS and one entry
 * here; `satisfies` makes the compiler name an id without an adapter.
 */
export const ADAPTERS = Object.freeze({
  openai: openAIAdapter,
  'openai-compatible': openAICompatibleAdapter,
  'azure-openai': azureOpenAIAdapter,
  anthropic: anthropicAdapter,
  'vertex-claude': vertexClaudeAdapter,
  'bedrock-converse': bedrockConverseAdapter,
  gemini: geminiAdapter,
  'vertex-gemini': vertexGeminiAdapter,
} satisfies Record<AdapterId, ProviderAdapter>);

export function adapterFor(id: AdapterId): ProviderAdapter {
  return ADAPTERS[id];
}
