export {
  type AdapterOptions,
  AdapterParseError,
  type BuildInput,
  type Effort,
  type FailureKind,
  type ParsedCompletion,
  type ProviderAdapter,
  type ResponseContext,
  type StreamEvent,
  type StreamTranslator,
  type TokenUsage,
  type UpstreamErrorResponse,
  type UpstreamFailure,
  type UpstreamHttpRequest,
} from './adapter.ts';
export { openAICompatibleAdapter } from './openai-compatible/index.ts';
export type {
  ChatCompletion,
  ChatCompletionChunk,
  ChatCompletionRequest,
  ChatMessage,
  ChatTool,
  JsonObject,
  OpenAIUsage,
} from './openai-types.ts';
export { isJsonObject } from './openai-types.ts';
export { ADAPTERS, findAdapter } from './registry.ts';
export { safeUpstreamMessage, validRetryAfter } from './safe-message.ts';
export { SseDecoder, type SseEvent } from './sse.ts';
export { tokenUsageFromOpenAI } from './usage.ts';
