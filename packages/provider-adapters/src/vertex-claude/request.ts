/** The HTTP request to Claude on Vertex AI (`:rawPredict` / `:streamRawPredict`). */
import { AdapterRequestError, type BuildInput, type UpstreamHttpRequest } from '../adapter.ts';
import { messagesHeaders } from '../anthropic/index.ts';
import { encodeMessagesRequest } from '../wire/anthropic-messages/index.ts';

/**
 * Vertex takes the API version in the body. `vertex-2023-10-16` is Vertex's name for the
 * 2023-06-01 rules the shared codec follows (the SDK's newer `2026-10-21` refuses temperature).
 */
export const VERTEX_ANTHROPIC_VERSION = 'vertex-2023-10-16';

/** Percent-encodes a path segment but keeps `@`, which Vertex model versions use (`claude-sonnet-4-5@20250929`). */
export function vertexPathSegment(value: string): string {
  return encodeURIComponent(value).replace(/%40/g, '@');
}

export function vertexSegment(name: string, value: string | undefined): string {
  if (value === undefined || value === '')
    throw new AdapterRequestError(`the Vertex endpoint has no ${name}.`);
  return vertexPathSegment(value);
}

export function buildVertexClaudeRequest(input: BuildInput): UpstreamHttpRequest {
  const { endpoint, offer } = input;
  const { body, betas, stream } = encodeMessagesRequest(input);
  // The model is named in the path; Vertex refuses a body that names it too.
  const { model: _model, ...rest } = body;
  const method = stream ? 'streamRawPredict' : 'rawPredict';
  const path =
    `/projects/${vertexSegment('project', endpoint.project)}/locations/${vertexSegment('region', endpoint.region)}` +
    `/publishers/anthropic/models/${vertexPathSegment(offer.upstreamModel)}:${method}`;
  return {
    method: 'POST',
    url: `${endpoint.baseUrl}${path}`,
    headers: messagesHeaders(stream, betas),
    body: JSON.stringify({ anthropic_version: VERTEX_ANTHROPIC_VERSION, ...rest }),
  };
}
