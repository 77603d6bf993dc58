/** Anthropic's own token counter, `POST /v1/messages/count_tokens`: free, and exact for its models. */
import { AdapterParseError, AdapterRequestError, type TokenCounter } from '../adapter.ts';
import { isJsonObject, type JsonObject, parseJson } from '../json.ts';
import { ANTHROPIC_API } from '../wire/anthropic-messages/index.ts';
import { ANTHROPIC_VERSION, messagesHeaders } from './request.ts';

/** Fields of a Messages body that the counter refuses (it generates nothing). */
export const NOT_COUNTED = [
  'max_tokens',
  'stream',
  'stop_sequences',
  'temperature',
  'top_p',
  'top_k',
  'metadata',
  'service_tier',
];

export const anthropicTokenCounter: TokenCounter = {
  buildRequest({ source, offer, endpoint }) {
    if (source.api !== ANTHROPIC_API)
      throw new AdapterRequestError('token counting takes an Anthropic Messages body.');
    const body: JsonObject = { ...source.body, model: offer.upstreamModel };
    for (const name of NOT_COUNTED) delete body[name];
    return {
      method: 'POST',
      url: `${endpoint.baseUrl}/v1/messages/count_tokens`,
      headers: { ...messagesHeaders(false, source.betas ?? []), 'anthropic-version': ANTHROPIC_VERSION },
      body: JSON.stringify(body),
    };
  },
  parseResponse: parseTokenCount,
};

/** `{"input_tokens": N}`, as Anthropic's counter and Vertex's answer. */
export function parseTokenCount(body: string): number {
  const json = parseJson(body);
  const count = isJsonObject(json) ? json.input_tokens : undefined;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 0)
    throw new AdapterParseError('the provider answered with something that is not a token count.');
  return count;
}
