import type { ProviderAdapter } from './adapter.ts';
import { openAICompatibleAdapter } from './openai-compatible/index.ts';

/** Every adapter by id. Adding a provider: its folder plus one entry here. */
export const ADAPTERS: Readonly<Record<string, ProviderAdapter>> = Object.freeze({
  [openAICompatibleAdapter.id]: openAICompatibleAdapter,
});

export function findAdapter(id: string): ProviderAdapter | undefined {
  return Object.hasOwn(ADAPTERS, id) ? ADAPTERS[id] : undefined;
}
