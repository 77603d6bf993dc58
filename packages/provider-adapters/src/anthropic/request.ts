/** The HTTP request to Anthropic's own API. */
import type { BuildInput, UpstreamHttpRequest } from '../adapter.ts';
import { encodeMessagesRequest } from '../wire/anthropic-messages/index.ts';

/**
 * The API version this adapter speaks. 2023-06-01 still accepts temperature/top_p/top_k,
 * documents in assistant turns and citations on user text, which 2026-10-21 refuses; the
 * codec follows 2023-06-01's rules. Changing it means re-checking those rules.
 */
export const ANTHROPIC_VERSION = '2023-06-01';

/** Headers every Messages call carries; credentials are added later by the signer. */
export function messagesHeaders(stream: boolean, betas: readonly string[]): Record<string, string> {
  return {
    'content-type': 'application/json',
    accept: stream ? 'text/event-stream' : 'application/json',
    ...(betas.length > 0 ? { 'anthropic-beta': betas.join(',') } : {}),
  };
}

export function buildAnthropicRequest(input: BuildInput): UpstreamHttpRequest {
  const { body, betas, stream } = encodeMessagesRequest(input);
  return {
    method: 'POST',
    url: `${input.endpoint.baseUrl}/v1/messages`,
    headers: { ...messagesHeaders(stream, betas), 'anthropic-version': ANTHROPIC_VERSION },
    body: JSON.stringify(body),
  };
}
