export {
  ADAPTER_IDS,
  type AdapterId,
  AdapterParseError,
  AdapterRequestError,
  type BuildInput,
  type ProviderAdapter,
  type ResponseContext,
  type StreamTranslator,
  type UpstreamErrorResponse,
  type UpstreamHttpRequest,
} from './adapter.ts';
export { isJsonObject, type JsonObject, parseJson } from './json.ts';
export * from './model/index.ts';
export { ADAPTERS, adapterFor } from './registry.ts';
export { safeUpstreamMessage, validRetryAfter } from './safe-message.ts';
export { SseDecoder, type SseEvent } from './sse.ts';
export * as openAIChat from './wire/openai-chat/index.ts';
export { ADAPTER_TRAITS, type AdapterTraits } from './endpoints.ts';
