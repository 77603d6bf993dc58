/**
 * A same-API passthrough forwards the client's body as sent. For a compressed request the
 * conversation fields of that body are re-encoded from the compressed model (OpenAI `messages`;
 * Anthropic `system` and `messages`; Responses `input`; Gemini `contents` and
 * `systemInstruction`) and everything else the client sent
 * stays: unknown fields, `anthropic-beta` values, tools, sampling settings. The adapter then
 * makes only its usual edits.
 */
import type { ModelRequest, SourceBody } from '@app/provider-adapters';
import { gemini, openAIChat, openAIResponses } from '@app/provider-adapters';
import { encodeTurns, textBlock } from '@app/provider-adapters/wire/anthropic-messages/encode-content.ts';

/** The body with its conversation from `request`; undefined for an API it cannot edit. */
export function compressedSource(source: SourceBody, request: ModelRequest): SourceBody | undefined {
  if (source.api === 'openai-chat') {
    const encoded = openAIChat.encodeChatRequest(request, String(source.body.model));
    return { ...source, body: { ...source.body, messages: encoded.messages ?? [] } };
  }
  if (source.api === 'anthropic-messages') {
    const body = { ...source.body, messages: encodeTurns(request.turns) } as Record<string, unknown>;
    if (request.system.length > 0) body.system = request.system.map(textBlock);
    else delete body.system;
    return { ...source, body: body as SourceBody['body'] };
  }
  if (source.api === openAIResponses.RESPONSES_API) {
    // The system prompt leads `input` as a developer message, so `instructions` goes.
    const { instructions: _instructions, ...rest } = source.body;
    return { ...source, body: { ...rest, input: openAIResponses.encodeResponsesInput(request) } };
  }
  if (source.api === gemini.GEMINI_API) {
    const { systemInstruction: _system, ...rest } = source.body;
    return { ...source, body: { ...rest, ...gemini.encodeConversation(request) } };
  }
  return undefined;
}
