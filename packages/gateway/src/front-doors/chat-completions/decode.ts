/**
 * The client's body as the pipeline takes it: as sent (an upstream of the same API forwards it
 * with only the gateway's edits) plus the internal model, decoded only when an upstream of
 * another API asks for it, so a same-API call never pays for a translation it does not use.
 */
import { type ModelRequest, openAIChat } from '@app/provider-adapters';
import type { ClientRequest } from '../../pipeline/prepare-call.ts';
import type { ChatRequestBody } from './request-schema.ts';

export function chatSource(body: ChatRequestBody): ClientRequest {
  let decoded: ModelRequest | undefined;
  return {
    source: { api: 'openai-chat', body },
    decode: () => (decoded ??= openAIChat.decodeChatRequest(body as openAIChat.ChatCompletionRequest)),
  };
}
