import { type AppError, defineErrors, type FrameworkErrorKind } from '@app/http-kit';

const RENEW =
  'Generate a new personal access token in the account dashboard (/dashboard) and send it as "Authorization: Bearer <token>".';

/**
 * Every error the gateway answers with, in the OpenAI envelope. `type` follows OpenAI's
 * classes so unmodified SDKs raise the matching exception. docs/gateway/errors.md lists them.
 */
export const gatewayErrors = defineErrors({
  invalid_request: {
    status: 400,
    type: 'invalid_request_error',
    message: (p: { reason: string }) => p.reason,
  },
  gateway_invalid_model_modifier: {
    status: 400,
    type: 'invalid_request_error',
    message: (p: { reason: string }) => p.reason,
  },
  gateway_invalid_provider: {
    status: 400,
    type: 'invalid_request_error',
    message: (p: { provider: string; accepted: readonly string[] }) =>
      `Unknown provider '${p.provider}'. Accepted providers: ${p.accepted.join(', ')}.`,
  },
  model_not_found: {
    status: 404,
    type: 'invalid_request_error',
    message: (p: { model: string }) =>
      `The model '${p.model}' does not exist or you do not have access to it. GET /v1/models lists the models available to you.`,
  },
  missing_token: {
    status: 401,
    type: 'authentication_error',
    message: () => `No personal access token was sent. ${RENEW}`,
  },
  gateway_invalid_token: {
    status: 401,
    type: 'authentication_error',
    message: (p: { reason: string }) => `The personal access token was not accepted (${p.reason}). ${RENEW}`,
  },
  gateway_token_expired: {
    status: 401,
    type: 'authentication_error',
    message: (p: { expiredAt: string }) => `The personal access token expired at ${p.expiredAt}. ${RENEW}`,
  },
  gateway_allocation_exhausted: {
    status: 402,
    type: 'insufficient_quota',
    message: (p: { project: string; provider: string }) =>
      `The allocation of project '${p.project}' for provider '${p.provider}' is exhausted. Ask a project admin to raise it, or choose another provider.`,
  },
  gateway_ip_not_allowed: {
    status: 403,
    type: 'permission_error',
    message: (p: { reason: string }) => p.reason,
  },
  not_found: {
    status: 404,
    type: 'invalid_request_error',
    message: (p: { method: string; path: string }) => `Unknown route ${p.method} ${p.path}.`,
  },
  body_too_large: {
    status: 413,
    type: 'invalid_request_error',
    message: () => 'Request body is larger than the limit.',
  },
  unsupported_media_type: {
    status: 415,
    type: 'invalid_request_error',
    message: (p: { reason: string }) => `Unsupported content type: ${p.reason}. Send application/json.`,
  },
  rate_limited: {
    status: 429,
    type: 'rate_limit_error',
    message: (p: { reason: string }) => p.reason,
  },
  upstream_invalid_request: {
    status: 400,
    type: 'invalid_request_error',
    message: (p: { provider: string; reason: string }) =>
      `The provider '${p.provider}' rejected the request: ${p.reason}`,
  },
  content_filter: {
    status: 400,
    type: 'invalid_request_error',
    message: (p: { provider: string; reason: string }) =>
      `The provider '${p.provider}' refused the request under its content policy: ${p.reason}`,
  },
  upstream_overloaded: {
    status: 503,
    type: 'api_error',
    message: (p: { provider: string }) =>
      `The provider '${p.provider}' is overloaded and turned the request away; retry shortly.`,
  },
  upstream_error: {
    status: 502,
    type: 'api_error',
    message: (p: { provider: string; reason: string }) => `The provider '${p.provider}' failed: ${p.reason}`,
  },
  provider_unavailable: {
    status: 503,
    type: 'api_error',
    message: (p: { reason: string }) => p.reason,
  },
  upstream_timeout: {
    status: 504,
    type: 'api_error',
    message: (p: { provider: string }) => `The provider '${p.provider}' did not answer in time.`,
  },
  overloaded: {
    status: 503,
    type: 'api_error',
    message: (p: { reason: string }) => p.reason,
  },
  internal: { status: 500, type: 'api_error', message: () => 'Internal server error.' },
});

export type GatewayErrorCode = keyof typeof gatewayErrors.catalogue;

export function gatewayErrorFromFramework(
  kind: FrameworkErrorKind,
  message: string,
  method: string,
  path: string,
): AppError {
  switch (kind) {
    case 'not_found':
      return gatewayErrors.create('not_found', { method, path });
    case 'body_too_large':
      return gatewayErrors.create('body_too_large', {});
    case 'unsupported_media_type':
      return gatewayErrors.create('unsupported_media_type', { reason: message });
    case 'validation':
    case 'malformed_body':
    case 'bad_request':
      return gatewayErrors.create('invalid_request', { reason: message });
    case 'overloaded':
      return gatewayErrors.create('overloaded', { reason: message });
    case 'internal':
      return gatewayErrors.create('internal', {});
  }
}
