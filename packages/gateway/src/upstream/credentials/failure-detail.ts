/**
 * A safe summary of a token-library failure for CredentialError messages. Library errors can
 * carry the request (a signed assertion, a client secret in a form body) in their fields or
 * causes, so nothing is copied from them except an HTTP status and short error codes.
 */
const CODE = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/;

function field(value: unknown, key: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[key] : undefined;
}

function code(value: unknown): string | undefined {
  return typeof value === 'string' && CODE.test(value) ? value : undefined;
}

function status(error: unknown): number | undefined {
  const candidates = [
    field(error, 'status'),
    field(error, 'statusCode'),
    field(field(error, 'response'), 'status'),
  ];
  return candidates.find((value): value is number => typeof value === 'number');
}

/** The OAuth `error` code: gaxios keeps the response body, MSAL copies it into `errorCode`. */
function oauthCode(error: unknown): string | undefined {
  return (
    code(field(field(field(error, 'response'), 'data'), 'error')) ??
    code(field(field(error, 'errorResponse'), 'error')) ??
    code(field(error, 'errorCode'))
  );
}

/** E.g. ` (HTTP 400, invalid_grant)`, or `` when nothing safe is known. */
export function failureDetail(error: unknown): string {
  // @azure/identity wraps MSAL's error, which has the status and code, as the cause.
  const sources = [error, field(error, 'cause')];
  const parts: string[] = [];
  const http = sources.map(status).find((value) => value !== undefined);
  if (http !== undefined) parts.push(`HTTP ${http}`);
  // The most specific label: the OAuth error, else a system code (ECONNREFUSED), else the class.
  const name = code(field(error, 'name'));
  const label =
    sources.map(oauthCode).find((value) => value !== undefined) ??
    code(field(error, 'code')) ??
    (name === 'Error' ? undefined : name);
  if (label !== undefined) parts.push(label);
  return parts.length === 0 ? '' : ` (${parts.join(', ')})`;
}
