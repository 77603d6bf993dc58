/**
 * How the admin API answers a refusal of the access functions: the catalogued code of the same
 * name (errors.ts, ACCESS_REFUSALS), with the reason and the field it is about. The rules and
 * their wording stay in the access area; only the status and envelope are added here.
 */
import { AccessAdminError } from '../access/admin.ts';
import { ACCESS_REFUSALS, type AccessRefusalCode, type GatewayErrorCode, gatewayErrors } from '../errors.ts';
import { errorResponses } from '../openapi-errors.ts';

/** The request field a 400 is about, as the API names it. */
const PARAM: Partial<Record<AccessRefusalCode, string>> = {
  invalid_email: 'email',
  invalid_slug: 'slug',
  invalid_cidr: 'ip_allow',
  invalid_provider: 'provider',
  invalid_amount: 'usd',
  invalid_ttl: 'ttl',
};

function isRefusal(code: string): code is AccessRefusalCode {
  return Object.hasOwn(ACCESS_REFUSALS, code);
}

/** A refusal of the access area as its catalogued error; anything else as it is. */
export function asApiError(error: unknown): unknown {
  if (!(error instanceof AccessAdminError) || !isRefusal(error.code)) return error;
  return gatewayErrors.create(error.code, { reason: error.reason }, { param: PARAM[error.code] ?? null });
}

/** What any admin route may answer: its credential, the IP rules, a bad request, the server. */
const EVERY_ROUTE: readonly GatewayErrorCode[] = [
  'admin_key_missing',
  'admin_key_invalid',
  'admin_key_expired',
  'admin_scope_missing',
  'gateway_ip_not_allowed',
  'invalid_request',
  'overloaded',
  'internal',
];

/** A route that takes a JSON body may also answer these. */
export const BODY_ERRORS: readonly GatewayErrorCode[] = ['body_too_large', 'unsupported_media_type'];

/** The OpenAPI error responses of an admin route that may also answer with `codes`. */
export function adminErrors(...codes: readonly GatewayErrorCode[]): Record<number, unknown> {
  return errorResponses([...EVERY_ROUTE, ...codes]);
}
