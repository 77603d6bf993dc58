/**
 * Vertex answers for Claude in two shapes: Anthropic's envelope when the model itself refused,
 * and Google's `{"error":{"code","message","status"}}` when Vertex did (quota, IAM, routing).
 */
import type { UpstreamErrorResponse } from '../adapter.ts';
import {
  BAD_CREDENTIALS,
  clientError,
  mapAnthropicError,
  overloaded,
  rateLimited,
  TIMED_OUT,
  UNKNOWN_MODEL,
} from '../anthropic/errors.ts';
import { isJsonObject, parseJson } from '../json.ts';
import type { UpstreamFailure } from '../model/response.ts';

function googleError(body: string): { status: unknown; message: unknown } | undefined {
  const parsed = parseJson(body);
  if (!isJsonObject(parsed) || !isJsonObject(parsed.error) || parsed.type === 'error') return undefined;
  const { status, message, code } = parsed.error;
  if (typeof status !== 'string' && typeof code !== 'number') return undefined;
  return { status, message };
}

export function mapVertexClaudeError(response: UpstreamErrorResponse): UpstreamFailure {
  const google = googleError(response.body);
  if (google === undefined) return mapAnthropicError(response);
  switch (google.status) {
    case 'RESOURCE_EXHAUSTED':
      return rateLimited(response);
    case 'PERMISSION_DENIED':
    case 'UNAUTHENTICATED':
      return BAD_CREDENTIALS;
    case 'INVALID_ARGUMENT':
    case 'FAILED_PRECONDITION':
      return clientError(google.message, response.status);
    case 'NOT_FOUND':
      return UNKNOWN_MODEL;
    case 'DEADLINE_EXCEEDED':
      return TIMED_OUT;
    case 'UNAVAILABLE':
      return overloaded(response);
    default:
      return mapAnthropicError({ ...response, body: '' });
  }
}
