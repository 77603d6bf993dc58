import { AdapterRequestError, type BuildInput, type UpstreamHttpRequest } from '../adapter.ts';
import type { JsonObject } from '../json.ts';
import { encodeChatRequest } from '../wire/openai-chat/encode-request.ts';

/**
 * The upstream body. A Chat Completions client's body goes as it came, unknown fields
 * included, with the gateway's edits only: the upstream's model id; the gateway's effort and
 * tier (it decided them and charges by them, so the client's `reasoning_effort`/`service_tier`
 * were inputs to that decision and are replaced here); and `include_usage` on streams, so every
 * stream is metered from real usage figures. A client of another API is translated.
 */
export function openAIBody(input: BuildInput, model: string): JsonObject {
  const { source, reasoning, tier } = input;
  // `input.request` is only read when translating: a same-API body is never decoded.
  const same = source?.api === 'openai-chat';
  const body: JsonObject = same ? { ...source.body, model } : encodeChatRequest(input.request, model);
  delete body.reasoning_effort;
  delete body.service_tier;
  if (reasoning.kind === 'openai') body.reasoning_effort = reasoning.value;
  else if (reasoning.kind !== 'omit')
    throw new AdapterRequestError(
      `effort of kind '${reasoning.kind}' cannot be sent to an OpenAI-API upstream`,
    );
  if (tier === 'flex') body.service_tier = 'flex';
  if (isStream(input)) {
    const options = same ? source.body.stream_options : undefined;
    body.stream = true;
    body.stream_options = {
      ...(typeof options === 'object' && options !== null ? options : {}),
      include_usage: true,
    };
  } else {
    // `stream_options` without `stream: true` is a 400 on OpenAI.
    delete body.stream_options;
  }
  return body;
}

export function isStream(input: BuildInput): boolean {
  return input.source?.api === 'openai-chat' ? input.source.body.stream === true : input.request.stream;
}

export function openAIHeaders(stream: boolean): Record<string, string> {
  return { 'content-type': 'application/json', accept: stream ? 'text/event-stream' : 'application/json' };
}

/** OpenAI itself and servers that speak its API: `<base>/chat/completions`. */
export function buildOpenAIRequest(input: BuildInput): UpstreamHttpRequest {
  return {
    method: 'POST',
    url: `${input.endpoint.baseUrl}/chat/completions`,
    headers: openAIHeaders(isStream(input)),
    body: JSON.stringify(openAIBody(input, input.offer.upstreamModel)),
  };
}
