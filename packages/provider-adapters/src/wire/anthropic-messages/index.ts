/** The Anthropic Messages codec, shared by the Anthropic and Vertex Claude adapters (and the Messages front door). */
export { decodeMessage, finishReason, usageFrom } from './decode.ts';
export { applyEffort, MIN_THINKING_BUDGET, outputLimit } from './effort.ts';
export { type EncodedMessages, encodeMessagesRequest } from './encode.ts';
export { createMessagesStreamTranslator, MessagesStreamDecoder, streamFailure } from './stream.ts';
export { ANTHROPIC_API } from './types.ts';
