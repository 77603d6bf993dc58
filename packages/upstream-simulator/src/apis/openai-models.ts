/** The OpenAI models the simulator knows, with what OpenAI and Azure accept for each. */

/** Efforts each OpenAI model accepts (their `/v1/models` reasoning options); others are 400. */
export const OPENAI_EFFORTS: Readonly<Record<string, readonly string[]>> = {
  'gpt-5.6-sol': ['none', 'low', 'medium', 'high', 'xhigh', 'max'],
  'gpt-5.6-terra': ['none', 'low', 'medium', 'high', 'xhigh', 'max'],
  'gpt-5.6-luna': ['none', 'low', 'medium', 'high', 'xhigh', 'max'],
  'gpt-5.5-2026-04-23': ['none', 'low', 'medium', 'high', 'xhigh'],
  'gpt-5.4-2026-03-05': ['none', 'low', 'medium', 'high', 'xhigh'],
  'gpt-5.4-mini-2026-03-17': ['none', 'low', 'medium', 'high', 'xhigh'],
};
/** Flex is offered for these on OpenAI; on Azure only for gpt-5.6-sol (preview). */
export const OPENAI_FLEX = new Set([
  'gpt-5.6-sol',
  'gpt-5.6-terra',
  'gpt-5.6-luna',
  'gpt-5.5-2026-04-23',
  'gpt-5.4-2026-03-05',
]);
export const AZURE_FLEX = new Set(['gpt-5.6-sol']);

/**
 * OpenAI's embedding models: full dimensions, and whether `dimensions` may shorten them
 * (text-embedding-3 and later only). providers.md, "Embeddings".
 */
export const OPENAI_EMBEDDING_MODELS: Readonly<Record<string, { dimensions: number; shortens: boolean }>> = {
  'text-embedding-3-small': { dimensions: 1536, shortens: true },
  'text-embedding-3-large': { dimensions: 3072, shortens: true },
  'text-embedding-ada-002': { dimensions: 1536, shortens: false },
};
