import { type AppError, defineErrors, type ErrorDefinition, type FrameworkErrorKind } from '@app/http-kit';

/**
 * How a caller gets a new token, naming only what this gateway serves: the account dashboard
 * when it is mounted, otherwise the operator's command. Appended to every 401 when rendered.
 */
export function tokenHint(dashboardPath: string | undefined): string {
  const get = dashboardPath
    ? `Generate a personal access token in the account dashboard (${dashboardPath})`
    : "Ask the gateway's operator for a personal access token (they run `npx gatewayctl tokens issue --email <your email> --project <project>`)";
  return `${get} and send it as "Authorization: Bearer <token>".`;
}

/** US dollars with the precision micro-dollars are stored in: $25.00, $0.0026, $0.000001. */
export function dollars(micros: number): string {
  const text = (micros / 1_000_000).toFixed(6).replace(/0+$/, '');
  const [whole, fraction = ''] = text.split('.');
  return `$${whole}.${fraction.padEnd(2, '0')}`;
}

/** One allocation bucket a request tried, as the 402 reports it. */
export interface TriedBucket {
  readonly provider: string;
  /** `none`: the project has no allocation for this provider; absent: not read (nothing left). */
  readonly balance?: { readonly allocatedMicros: number; readonly remainingMicros: number } | 'none';
}

/** `cloud_b has $0.00 left of $1.00; developer has no allocation` */
export function bucketsText(buckets: readonly TriedBucket[]): string {
  const parts = buckets.map(({ provider, balance }) => {
    if (balance === undefined) return `${provider} has nothing left`;
    if (balance === 'none') return `${provider} has no allocation`;
    const left = dollars(Math.max(0, balance.remainingMicros));
    return `${provider} has ${left} left of ${dollars(balance.allocatedMicros)}`;
  });
  return parts.join('; ') || 'no provider bucket could be tried';
}

const reason = (p: { reason: string }) => p.reason;
const invalid = { status: 400, type: 'invalid_request_error', message: reason } as const;
const unknown = { status: 404, type: 'invalid_request_error', message: reason } as const;
const conflict = { status: 409, type: 'invalid_request_error', message: reason } as const;

/**
 * Refusals of the access functions (`AccessAdminError`, the same codes) as the admin API
 * answers them: the reason without gatewayctl's command hint. 404: a named user, project, token
 * or membership does not exist; 409: the request conflicts with the current state.
 */
export const ACCESS_REFUSALS = {
  invalid_email: invalid,
  invalid_slug: invalid,
  invalid_cidr: invalid,
  invalid_provider: invalid,
  invalid_amount: invalid,
  invalid_ttl: invalid,
  invalid_limit: invalid,
  unknown_user: unknown,
  unknown_project: unknown,
  unknown_token: unknown,
  no_membership_request: unknown,
  not_member: unknown,
  duplicate_user: conflict,
  duplicate_project: conflict,
  already_member: conflict,
  membership_not_approved: conflict,
  no_allocation: conflict,
} as const satisfies Record<string, ErrorDefinition<{ reason: string }>>;

export type AccessRefusalCode = keyof typeof ACCESS_REFUSALS;

const ADMIN_KEY_HINT =
  'Send an admin key as "Authorization: Bearer gwadm_..."; an operator creates one with `npx gatewayctl admin-keys create --description <what for>`.';

/** The admin API's own credential errors (docs/gateway/admin-api.md). */
const ADMIN_KEY_ERRORS = {
  admin_key_missing: {
    status: 401,
    type: 'authentication_error',
    message: () => `No admin key was sent. ${ADMIN_KEY_HINT}`,
  },
  admin_key_invalid: {
    status: 401,
    type: 'authentication_error',
    message: (p: { reason: string }) => `The admin key was not accepted (${p.reason}). ${ADMIN_KEY_HINT}`,
  },
  admin_key_expired: {
    status: 401,
    type: 'authentication_error',
    message: (p: { expiredAt: string }) => `The admin key expired at ${p.expiredAt}. ${ADMIN_KEY_HINT}`,
  },
  admin_scope_missing: {
    status: 403,
    type: 'permission_error',
    message: (p: { scope: string; granted: readonly string[] }) =>
      `This admin key has the scopes ${p.granted.join(', ')}; this request needs '${p.scope}'. Create a key with it: \`npx gatewayctl admin-keys create --scopes ${p.scope} ...\`.`,
  },
} as const;

/** Codes only the admin API (/admin/v1) answers; the model API's routes never do. */
export const ADMIN_API_ERROR_CODES: readonly string[] = [
  ...Object.keys(ACCESS_REFUSALS),
  ...Object.keys(ADMIN_KEY_ERRORS),
];

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
  gateway_wrong_model_kind: {
    status: 400,
    type: 'invalid_request_error',
    message: (p: { model: string; kind: string; route: string; use: string }) =>
      `The model '${p.model}' is ${p.kind === 'embedding' ? 'an embedding' : 'a chat'} model, which ${p.route} does not serve; ${p.use}. GET /v1/models lists each model's kind.`,
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
    message: (p: { model: string; detail?: string }) =>
      p.detail
        ? `The model '${p.model}' does not exist: ${p.detail}`
        : `The model '${p.model}' does not exist or you do not have access to it. GET /v1/models lists the models available to you.`,
  },
  model_retired: {
    status: 410,
    type: 'invalid_request_error',
    message: (p: { model: string; id: string; retiredOn: string; successor?: string | undefined }) => {
      const named = p.model === p.id ? `'${p.model}'` : `'${p.model}' (${p.id})`;
      const instead = p.successor ? `Use its successor '${p.successor}' instead` : 'Choose another model';
      return `The model ${named} was retired on ${p.retiredOn} and no longer answers requests. ${instead} (GET /v1/models lists the models available to you).`;
    },
  },
  missing_token: {
    status: 401,
    type: 'authentication_error',
    message: () => 'No personal access token was sent.',
  },
  gateway_invalid_token: {
    status: 401,
    type: 'authentication_error',
    message: (p: { reason: string }) => `The personal access token was not accepted (${p.reason}).`,
  },
  gateway_token_expired: {
    status: 401,
    type: 'authentication_error',
    message: (p: { expiredAt: string }) => `The personal access token expired at ${p.expiredAt}.`,
  },
  gateway_allocation_exhausted: {
    status: 402,
    type: 'insufficient_quota',
    message: (p: { project: string; buckets: readonly TriedBucket[] }) =>
      `The allocation of project '${p.project}' cannot pay for this request: ${bucketsText(p.buckets)}. Ask a project admin to raise an allocation, or choose a provider with budget left (GET /v1/account lists them).`,
  },
  gateway_membership_inactive: {
    status: 403,
    type: 'permission_error',
    message: (p: { project: string; status: 'pending' | 'revoked' | 'removed' }) =>
      p.status === 'pending'
        ? `Your membership of project '${p.project}' is waiting for a project admin's approval; its tokens work once it is approved.`
        : `Your membership of project '${p.project}' was ${p.status} by a project admin, so its tokens no longer work and no new one can be generated. Ask an admin of '${p.project}' to approve you again.`,
  },
  gateway_ip_not_allowed: {
    status: 403,
    type: 'permission_error',
    message: (p: { reason: string }) => p.reason,
  },
  not_found: {
    status: 404,
    type: 'invalid_request_error',
    message: (p: { method: string; path: string; hint?: string }) =>
      `Unknown route ${p.method} ${p.path}.${p.hint === undefined ? '' : ` ${p.hint}`}`,
  },
  gateway_dashboard_off: {
    status: 404,
    type: 'invalid_request_error',
    message: (p: { reason: string }) =>
      `The account dashboard is off on this gateway (${p.reason}). ${tokenHint(undefined)}`,
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
    message: (p: { provider: string; retry: string }) =>
      `The provider '${p.provider}' is rate limiting the gateway's requests; ${p.retry}.`,
  },
  rate_limit_exceeded: {
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
    message: (p: { provider: string; retry: string }) =>
      `The provider '${p.provider}' is overloaded and turned the request away; ${p.retry}.`,
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
  ...ADMIN_KEY_ERRORS,
  ...ACCESS_REFUSALS,
});

export type GatewayErrorCode = keyof typeof gatewayErrors.catalogue;

export function gatewayErrorFromFramework(
  kind: FrameworkErrorKind,
  message: string,
  method: string,
  path: string,
  param?: string,
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
      return gatewayErrors.create('invalid_request', { reason: message }, param ? { param } : {});
    case 'overloaded':
      return gatewayErrors.create('overloaded', { reason: message });
    case 'internal':
      return gatewayErrors.create('internal', {});
  }
}
