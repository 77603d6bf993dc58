export {
  ADAPTER_IDS,
  type AdapterId,
  AdapterParseError,
  AdapterRequestError,
  type BuildInput,
  type CountInput,
  type DeploymentLister,
  type DeploymentsLocation,
  type DeploymentsPage,
  type EmbeddingsTranslator,
  type ProviderAdapter,
  type ResponseContext,
  type StreamTranslator,
  type TokenCounter,
  type UpstreamErrorResponse,
  type UpstreamHttpRequest,
} from './adapter.ts';
export { isJsonObject, type JsonObject, parseJson } from './json.ts';
export * from './model/index.ts';
export { ADAPTERS, adapterFor, tokenCounterFor } from './registry.ts';
export { safeUpstreamMessage, validRetryAfter } from './safe-message.ts';
export {
  decodeFloat32Base64,
  encodeFloat32Base64,
  encodeOpenAIEmbeddings,
  type OpenAIEmbeddingsEnvelope,
} from './embeddings/openai-encoding.ts';
export { SseDecoder, type SseEvent } from './sse.ts';
export * as openAIChat from './wire/openai-chat/index.ts';
export * as anthropicMessages from './wire/anthropic-messages/index.ts';
export * as openAIResponses from './wire/openai-responses/index.ts';
export * as gemini from './wire/gemini/index.ts';
export { ADAPTER_TRAITS, type AdapterTraits } from './endpoints.ts';
export { genAiProviderName } from './gen-ai.ts';
