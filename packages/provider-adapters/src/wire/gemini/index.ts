/**
 * The generateContent codec: both Gemini adapters (Developer API and Vertex) are built from
 * it, and the Gemini front door decodes and encodes with it.
 */
export { type GenerateContentCall, generateContentCall } from './body.ts';
export {
  decodeCountTokensRequest,
  encodeCountTokensResponse,
  geminiTokenCounter,
  parseCountTokens,
} from './count-tokens.ts';
export { derivedCallId, isDerivedCallId } from './decode-contents.ts';
export { GeminiDecodeError } from './decode-error.ts';
export { decodeGenerateContentRequest, type GeminiDecodeOptions } from './decode-request.ts';
export { jsonSchemaOf } from './decode-tools.ts';
export {
  encodeGenerateContentResponse,
  type GeminiEnvelope,
  geminiFinishReason,
  geminiParts,
  usageToGemini,
} from './encode-response.ts';
export { formatSseChunk, GeminiChunkEncoder, JsonArrayFramer } from './encode-stream.ts';
export {
  GOOGLE_STATUSES,
  type GoogleStatus,
  googleErrorBody,
  googleStatusOf,
  retryInfoDetail,
} from './error-envelope.ts';
export { mapGeminiError } from './errors.ts';
export { encodeConversation, encodeGenerateContent } from './request.ts';
export { parseGenerateContent } from './response.ts';
export { createGeminiStreamTranslator } from './stream.ts';
export { applyThinking, effortOfBudget, includesThoughts, thinkingEffort } from './thinking.ts';
export { GEMINI_API, type GeminiDialect, type GeminiRequestBody } from './types.ts';
