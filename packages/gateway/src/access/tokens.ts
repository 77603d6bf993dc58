import { randomUUID } from 'node:crypto';
import { decodeProtectedHeader, errors, jwtVerify, SignJWT } from 'jose';
import type { SigningKeys } from './keys.ts';

/** The payload of a personal access token (second, base64url segment of the JWT). */
export interface TokenClaims {
  /** User id. */
  readonly sub: string;
  /** Project slug. */
  readonly project: string;
  readonly jti: string;
  readonly iat: number;
  readonly exp: number;
}

export async function signToken(
  keys: SigningKeys,
  input: { userId: number; projectSlug: string; issuedAt: Date; expiresAt: Date },
): Promise<{ token: string; jti: string }> {
  const jti = randomUUID();
  const token = await new SignJWT({ project: input.projectSlug })
    .setProtectedHeader({ alg: keys.current.alg, kid: keys.current.kid, typ: 'JWT' })
    .setSubject(String(input.userId))
    .setJti(jti)
    .setIssuedAt(Math.floor(input.issuedAt.getTime() / 1000))
    .setExpirationTime(Math.floor(input.expiresAt.getTime() / 1000))
    .sign(keys.current.key);
  return { token, jti };
}

export type Verified =
  | { readonly ok: true; readonly claims: TokenClaims }
  | { readonly ok: false; readonly expiredAt: Date }
  | { readonly ok: false; readonly expiredAt?: undefined; readonly reason: string };

/**
 * Checks format, key id, signature and expiry. `reason` is safe to show the caller: it never
 * says more than which check failed.
 */
export async function verifyToken(keys: SigningKeys, token: string): Promise<Verified> {
  let kid: string | undefined;
  try {
    kid = decodeProtectedHeader(token).kid;
  } catch {
    return { ok: false, reason: 'not a well-formed token' };
  }
  const verifier = kid === undefined ? undefined : keys.verifiers.get(kid);
  if (!verifier) return { ok: false, reason: 'signed with an unknown key' };
  try {
    const { payload } = await jwtVerify(token, verifier.key, {
      algorithms: [verifier.alg],
      requiredClaims: ['sub', 'jti', 'iat', 'exp'],
    });
    if (typeof payload.project !== 'string' || typeof payload.jti !== 'string')
      return { ok: false, reason: 'missing claims' };
    return { ok: true, claims: payload as unknown as TokenClaims };
  } catch (error) {
    // jose checks the signature before the claims, so an expired token here is genuine.
    if (error instanceof errors.JWTExpired && typeof error.payload.exp === 'number')
      return { ok: false, expiredAt: new Date(error.payload.exp * 1000) };
    if (error instanceof errors.JWSSignatureVerificationFailed) return { ok: false, reason: 'bad signature' };
    return { ok: false, reason: 'not a well-formed token' };
  }
}
