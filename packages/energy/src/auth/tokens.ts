import { hash, randomBytes } from 'node:crypto';

/** 32 random bytes, base64url: unguessable, so a fast unsalted sha256 is a sound lookup key. */
export function newToken(): { token: string; hash: string } {
  const token = randomBytes(32).toString('base64url');
  return { token, hash: hashToken(token) };
}

/** One-shot `crypto.hash`: no Hash object per request, on the path of every call. */
export function hashToken(token: string): string {
  return hash('sha256', token, 'hex');
}

const TOKEN_FORMS = [/^Token\s+token="?([^",\s]+)"?/i, /^Bearer\s+(\S+)$/i];

/** `Authorization: Token token=...` (Rails' authenticate_with_http_token) or `Bearer ...`. */
export function tokenFromAuthorization(header: string | undefined): string | undefined {
  if (!header) return undefined;
  for (const form of TOKEN_FORMS) {
    const match = form.exec(header.trim());
    if (match?.[1]) return match[1];
  }
  return undefined;
}
