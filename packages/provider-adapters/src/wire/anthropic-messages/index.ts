/** The Anthropic Messages codec, shared by the Anthropic and Vertex Claude adapters and the Messages front door. */
export { decodeMessage, finishReason, usageFrom } from './decode.ts';
export { decodeMessagesRequest, MessagesDecodeError } from './decode-request.ts';
export { applyEffort, MIN_THINKING_BUDGET, outputLimit } from './effort.ts';
export { type EncodedMessages, encodeMessagesRequest } from './encode.ts';
export {
  encodeMessage,
  type MessageEnvelope,
  stopReason,
  toolInput,
  usageToAnthropic,
} from './encode-response.ts';
export { formatMessagesEvent, MessagesEventEncoder, type MessagesSseEvent } from './encode-stream.ts';
export { createMessagesStreamTranslator, MessagesStreamDecoder, streamFailure } from './stream.ts';
export { ANTHROPIC_API } from './types.ts';
