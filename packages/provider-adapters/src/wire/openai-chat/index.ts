export { decodeChatRequest, WireDecodeError } from './decode-request.ts';
export { ChatChunkDecoder, decodeChatCompletion, finishReasonOf, servedTierOf } from './decode-response.ts';
export { encodeChatRequest } from './encode-request.ts';
export { ChatChunkEncoder, type ChatEnvelope, encodeChatCompletion } from './encode-response.ts';
export type * from './types.ts';
export { usageFromOpenAI, usageToOpenAI } from './usage.ts';
