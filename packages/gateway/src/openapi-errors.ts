/**
 * The error responses of the gateway's OpenAPI document, derived from the error catalogue: every
 * status a route can answer with, its codes, and an example body per code, so a code added to
 * the catalogue appears in /docs without another edit.
 */
import { type TSchema, Type } from 'typebox';
import { ADMIN_API_ERROR_CODES, type GatewayErrorCode, gatewayErrors } from './errors.ts';

const catalogue = gatewayErrors.catalogue;
/** Every code a route of the model API (/v1) can answer: the catalogue but the admin API's own. */
export const MODEL_API_ERRORS = (Object.keys(catalogue) as GatewayErrorCode[]).filter(
  (code) => !ADMIN_API_ERROR_CODES.includes(code),
);
const JSON_TYPE = 'application/json';

/** Example parameters for messages whose placeholders would read badly; others get `<name>`. */
const SAMPLE_PARAMS: Partial<Record<GatewayErrorCode, Record<string, unknown>>> = {
  invalid_request: { reason: "'messages' must NOT have fewer than 1 items." },
  gateway_invalid_model_modifier: {
    reason:
      "Modifier ':flex' in model 'claude-sonnet:flex' is not accepted by claude-sonnet-4-6. Accepted tier modifiers: (none).",
  },
  gateway_wrong_model_kind: {
    model: 'text-embedding-3-small',
    kind: 'embedding',
    route: 'POST /v1/chat/completions',
    use: 'send it to POST /v1/embeddings',
  },
  gateway_invalid_provider: {
    provider: 'cloud_z',
    accepted: ['developer', 'cloud_a', 'cloud_b', 'cloud_c'],
  },
  model_not_found: { model: 'gpt-4-turbo' },
  gateway_invalid_token: { reason: 'bad signature' },
  gateway_token_expired: { expiredAt: '2026-11-29T14:54:57.000Z' },
  gateway_allocation_exhausted: {
    project: 'demo',
    buckets: [
      { provider: 'developer', balance: 'none' },
      { provider: 'cloud_b', balance: { allocatedMicros: 5_000_000, remainingMicros: 0 } },
    ],
  },
  gateway_ip_not_allowed: {
    reason: "Requests from 192.0.2.7 are not allowed by the IP allowlist of project 'demo'.",
  },
  not_found: { method: 'GET', path: '/v1/model' },
  unsupported_media_type: { reason: 'text/plain' },
  upstream_invalid_request: { provider: 'developer', reason: 'Unsupported parameter: temperature.' },
  content_filter: { provider: 'cloud_c', reason: 'the prompt was filtered.' },
  upstream_error: { provider: 'cloud_a', reason: 'the upstream answered 500.' },
  provider_unavailable: {
    reason:
      "The provider 'cloud_b' is failing and temporarily taken out of service; retry later or choose another provider.",
  },
  overloaded: { reason: 'The gateway is overloaded; retry shortly.' },
  admin_key_invalid: { reason: 'unknown admin key' },
  admin_key_expired: { expiredAt: '2026-11-29T14:54:57.000Z' },
  admin_scope_missing: { scope: 'write', granted: ['read'] },
  invalid_email: { reason: "'alice' is not an email address." },
  invalid_slug: {
    reason: "'Research!' is not a valid project slug (lower-case letters, digits and '-', at most 63).",
  },
  invalid_cidr: {
    reason: 'Not an IPv4/IPv6 address or CIDR: 10.0.0.300 (examples: 203.0.113.0/24, 2001:db8::/48).',
  },
  invalid_provider: {
    reason: "Unknown provider 'cloud_z'. Providers: developer, cloud_a, cloud_b, cloud_c.",
  },
  invalid_amount: { reason: "'-1' is not an amount in US dollars between 0 and 1000000000." },
  invalid_ttl: { reason: "A token may live at most 30d; '90d' is longer." },
  invalid_limit: { reason: "requestsPerMinute must be a whole number from 0 up, or none; got '-1'." },
  unknown_user: { reason: 'No user with email alice@example.com.' },
  unknown_project: { reason: "No project 'research'." },
  unknown_token: { reason: "No token with id 'f32dfe24-eab1-4886-992e-88d0b4ff5240'." },
  no_membership_request: { reason: "alice@example.com has not requested membership of 'research'." },
  not_member: { reason: "alice@example.com is not a member of 'research'." },
  duplicate_user: { reason: 'A user with email alice@example.com already exists.' },
  duplicate_project: { reason: "Project 'research' already exists." },
  already_member: { reason: "alice@example.com is already an approved member of 'research'." },
  membership_not_approved: {
    reason:
      "alice@example.com is not an approved member of 'research' (pending); a project admin must approve the membership first.",
  },
  no_allocation: {
    reason: "Project 'research' has no gateway allocation; set one first.",
  },
};

/** `<name>` for every parameter a message reads: a readable message for any new code. */
const placeholders = new Proxy({} as Record<string, unknown>, {
  get: (_target, key) => (typeof key === 'string' ? `<${key}>` : undefined),
});

function exampleMessage(code: GatewayErrorCode): string {
  const message = catalogue[code].message as (params: unknown) => string;
  try {
    return message(SAMPLE_PARAMS[code] ?? placeholders);
  } catch {
    return `(${code})`;
  }
}

/** Statuses whose answer carries Retry-After (the catalogue's 429s and 503s). */
const RETRY_AFTER_STATUSES = new Set([429, 503]);

export function errorEnvelope(codes: readonly string[]): TSchema {
  return Type.Object({
    error: Type.Object({
      message: Type.String(),
      type: Type.String(),
      param: Type.Union([Type.String(), Type.Null()]),
      code: Type.Union(codes.map((code) => Type.Literal(code))),
    }),
  });
}

/**
 * The error responses by status for these codes (default: every code of the model API), with an
 * example body per code and the headers given for every response of the route.
 */
export function errorResponses(
  codes: readonly GatewayErrorCode[] = MODEL_API_ERRORS,
  headers: Record<string, TSchema> = {},
): Record<number, unknown> {
  const byStatus = new Map<number, GatewayErrorCode[]>();
  for (const code of codes) {
    const { status } = catalogue[code];
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const responses: Record<number, unknown> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    const examples = Object.fromEntries(
      list.map((code) => [
        code,
        {
          summary: code,
          value: {
            error: {
              message: exampleMessage(code),
              type: catalogue[code].type,
              param: code === 'model_not_found' ? 'model' : null,
              code,
            },
          },
        },
      ]),
    );
    responses[status] = {
      description: list.map((code) => `\`${code}\``).join(', '),
      headers: {
        ...headers,
        ...(RETRY_AFTER_STATUSES.has(status)
          ? { 'retry-after': Type.String({ description: 'Seconds to wait before retrying, when known' }) }
          : {}),
      },
      content: { [JSON_TYPE]: { schema: errorEnvelope(list), examples } },
    };
  }
  return responses;
}

/** The errors of any authenticated `/v1` route that is not the chat path. */
export const AUTHENTICATED_ROUTE_ERRORS: readonly GatewayErrorCode[] = MODEL_API_ERRORS.filter((code) => {
  const { status } = catalogue[code];
  return (
    status === 401 || status === 403 || status === 500 || code === 'overloaded' || code === 'invalid_request'
  );
});
