/** Header handling shared by the signers. */
import type { SignableRequest } from './signer.ts';

/**
 * Credential headers a request must not carry into the signer: Azure rejects requests with
 * both `api-key` and `Authorization`, and a header copied from a client must never reach an
 * upstream next to (or instead of) the gateway's own credential.
 */
const CREDENTIAL_HEADERS: ReadonlySet<string> = new Set([
  'authorization',
  'proxy-authorization',
  'api-key',
  'x-api-key',
  'x-goog-api-key',
  'x-amz-date',
  'x-amz-security-token',
  'x-amz-content-sha256',
]);

/** The request's own headers, lower-cased, without any credential header. */
export function ownHeaders(request: SignableRequest): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    const lower = name.toLowerCase();
    if (!CREDENTIAL_HEADERS.has(lower)) headers[lower] = value;
  }
  return headers;
}

/** The request's own headers plus one credential header. */
export function withCredentialHeader(
  request: SignableRequest,
  name: string,
  value: string,
): Record<string, string> {
  return { ...ownHeaders(request), [name]: value };
}
