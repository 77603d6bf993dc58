import type { AdapterId, ProviderAdapter, TokenCounter } from './adapter.ts';
import { anthropicAdapter } from './anthropic/index.ts';
import { azureOpenAIAdapter } from './azure-openai/index.ts';
import { bedrockConverseAdapter } from './bedrock-converse/index.ts';
import { geminiAdapter, geminiApiTokenCounter } from './gemini/index.ts';
import type { WireApi } from './model/request.ts';
import { openAIAdapter } from './openai/index.ts';
import { openAICompatibleAdapter } from './openai-compatible/index.ts';
import { vertexClaudeAdapter } from './vertex-claude/index.ts';
import { vertexGeminiAdapter, vertexGeminiTokenCounter } from './vertex-gemini/index.ts';

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

/**
 * Counters of another client API than the one `ProviderAdapter.countTokens` counts (a
 * Messages body): the Gemini upstreams count a Gemini client's body.
 */
const COUNTERS: Readonly<Partial<Record<WireApi, Partial<Record<AdapterId, TokenCounter>>>>> = {
  'gemini-generate': { gemini: geminiApiTokenCounter, 'vertex-gemini': vertexGeminiTokenCounter },
};

/** The upstream's own counter of a body of the client API `api`; undefined: the gateway estimates. */
export function tokenCounterFor(id: AdapterId, api: WireApi): TokenCounter | undefined {
  const adapter = ADAPTERS[id];
  if (adapter.countTokens !== undefined && adapter.wireApi === api) return adapter.countTokens;
  return COUNTERS[api]?.[id];
}
