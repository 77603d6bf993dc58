import { AdapterParseError, type ResponseContext } from '../adapter.ts';
import { isJsonObject, parseJson } from '../json.ts';
import type { ParsedResponse } from '../model/response.ts';
import { decodeChatCompletion } from '../wire/openai-chat/decode-response.ts';

/** A 2xx body: decoded for metering, and passed on as it is to a Chat Completions client. */
export function parseOpenAIResponse(body: string, context: ResponseContext): ParsedResponse {
  const parsed = parseJson(body);
  if (parsed === undefined) throw new AdapterParseError('the provider answered with a body that is not JSON');
  if (!isJsonObject(parsed) || !Array.isArray(parsed.choices)) {
    throw new AdapterParseError('the provider answered without a choices array');
  }
  const response = decodeChatCompletion(parsed);
  return context.clientApi === 'openai-chat'
    ? { response, native: { api: 'openai-chat', body: parsed } }
    : { response };
}
