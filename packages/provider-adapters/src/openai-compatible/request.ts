import type { BuildInput, UpstreamHttpRequest } from '../adapter.ts';
import type { JsonObject } from '../openai-types.ts';

/**
 * The client's body goes upstream as it came, unknown fields included, with four changes:
 * the upstream's model id; the gateway's effort and tier (the gateway decides them and charges
 * by them, so client `reasoning_effort`/`service_tier` values were already taken into account
 * as inputs and are replaced here); and, for streams, `include_usage` so that every stream can
 * be metered from real usage figures.
 */
export function buildOpenAIRequest(input: BuildInput): UpstreamHttpRequest {
  const { request, options } = input;
  const body: JsonObject = { ...request, model: input.upstreamModel };
  delete body.reasoning_effort;
  delete body.service_tier;
  if (options.reasoningEffort !== undefined) body.reasoning_effort = options.reasoningEffort;
  if (options.serviceTier === 'flex') body.service_tier = 'flex';
  if (request.stream === true) {
    body.stream_options = { ...(request.stream_options ?? {}), include_usage: true };
  } else {
    // `stream_options` without `stream: true` is a 400 on OpenAI.
    delete body.stream_options;
  }
  return {
    method: 'POST',
    path: '/chat/completions',
    headers: {
      'content-type': 'application/json',
      accept: request.stream === true ? 'text/event-stream' : 'application/json',
    },
    body: JSON.stringify(body),
  };
}
