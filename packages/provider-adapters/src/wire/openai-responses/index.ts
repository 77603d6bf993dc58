/** The OpenAI Responses codec, shared by the OpenAI and Azure adapters and the Responses front door. */
export { decodeResponsesRequest } from './decode-request.ts';
export { encodeResponsesInput } from './encode-request.ts';
export { decodeResponse, isResponseObject, servedTierOf } from './decode-response.ts';
export { encodeResponse } from './encode-response.ts';
export {
  formatResponsesEvent,
  ResponsesEventEncoder,
  type ResponsesFailure,
  type ResponsesSseEvent,
} from './encode-stream.ts';
export { responsesBody } from './request.ts';
export { createResponsesStreamTranslator, ResponsesStreamDecoder, responsesStreamFailure } from './stream.ts';
export { RESPONSES_API, type ResponseEnvelope } from './types.ts';
export { usageFromResponses, usageToResponses, withCacheWriteTokens } from './usage.ts';
