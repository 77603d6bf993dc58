/**
 * The provider family each adapter talks to, as the OpenTelemetry GenAI semantic conventions
 * name it (`gen_ai.provider.name`, well-known values): trace backends group and price spans by
 * it. An OpenAI-compatible server (vLLM, a local proxy) has no well-known value; the
 * conventions allow a custom one, and the adapter's own id says what it is.
 */
import type { AdapterId } from './adapter.ts';

const GEN_AI_PROVIDER_NAMES: Readonly<Record<AdapterId, string>> = {
  openai: 'openai',
  'openai-compatible': 'openai_compatible',
  'azure-openai': 'azure.ai.openai',
  anthropic: 'anthropic',
  'vertex-claude': 'gcp.vertex_ai',
  'bedrock-converse': 'aws.bedrock',
  gemini: 'gcp.gemini',
  'vertex-gemini': 'gcp.vertex_ai',
};

/** `gen_ai.provider.name` of the upstream an adapter calls. */
export function genAiProviderName(adapter: AdapterId): string {
  return GEN_AI_PROVIDER_NAMES[adapter];
}
