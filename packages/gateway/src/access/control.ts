import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { AccessControl, Principal, TokenSource } from '../contracts.ts';
import type { GatewayDatabase } from '../db/schema.ts';
import { gatewayErrors } from '../errors.ts';
import { noteCaller } from '../request-log.ts';
import type { AccessConfig } from './config.ts';
import { isAdminKey } from './admin-keys.ts';
import { addressCheck, configuredRanges } from './ip-errors.ts';
import type { SigningKeys } from './keys.ts';
import { createTokenStateCache, type TokenState } from './token-state.ts';
import { type TokenClaims, verifyToken } from './tokens.ts';

export interface ControlDeps {
  readonly db: Kysely<GatewayDatabase>;
  readonly keys: SigningKeys;
  readonly config: AccessConfig;
  readonly log: FastifyBaseLogger;
}

const VERIFIED_MAX = 10_000;
const BEARER = /^Bearer[ \t]+([^\s]+)[ \t]*$/i;

/** The credential of an `Authorization: Bearer <credential>` header; undefined for another form. */
export function bearerCredential(header: string): string | undefined {
  return BEARER.exec(header)?.[1];
}

function invalid(reason: string) {
  return gatewayErrors.create('gateway_invalid_token', { reason });
}

/** Authorization first, then x-api-key (how Anthropic clients send a key, e.g. Claude Code's). */
export const DEFAULT_TOKEN_SOURCES: readonly TokenSource[] = [
  { kind: 'bearer' },
  { kind: 'header', name: 'x-api-key' },
];

/** A source's non-blank value, trimmed; undefined when the request does not carry it. */
function presented(request: FastifyRequest, source: TokenSource): string | undefined {
  const value =
    source.kind === 'query'
      ? (request.query as Record<string, unknown> | undefined)?.[source.name]
      : request.headers[source.kind === 'bearer' ? 'authorization' : source.name];
  if (typeof value !== 'string' || value.trim() === '') return undefined;
  return source.kind === 'bearer' ? value : value.trim();
}

/**
 * The token of the first source the request carries. An Authorization header that comes wins
 * over later sources even when it is not of the Bearer form (then the token is invalid).
 */
function presentedToken(request: FastifyRequest, sources: readonly TokenSource[]): string {
  for (const source of sources) {
    const value = presented(request, source);
    if (value === undefined) continue;
    if (source.kind !== 'bearer') return value;
    const token = bearerCredential(value);
    if (!token) throw invalid('the Authorization header is not "Bearer <token>"');
    return token;
  }
  throw gatewayErrors.create('missing_token', {});
}

function tokenOf(request: FastifyRequest, sources: readonly TokenSource[]): string {
  const token = presentedToken(request, sources);
  if (isAdminKey(token))
    throw invalid('an admin key is a credential of the admin API (/admin/v1), not of /v1');
  return token;
}

/** Why a token that verified cryptographically is still refused, or undefined when it is fine. */
function refusal(claims: TokenClaims, state: TokenState | undefined): string | undefined {
  if (!state) return 'unknown token';
  if (state.revoked) return 'the token was revoked';
  if (claims.sub !== String(state.userId) || claims.project !== state.projectSlug)
    return 'claims do not match';
  return undefined;
}

/**
 * A sound token of someone who is no longer an approved member: a new token would be refused
 * too, so the answer says what happened to the membership instead of how to get a token.
 */
function refuseInactiveMember(state: TokenState): void {
  if (state.membership === 'approved') return;
  const status = state.membership === undefined ? 'removed' : state.membership;
  throw gatewayErrors.create('gateway_membership_inactive', { project: state.projectSlug, status });
}

/**
 * `authenticate` for every /v1 call: global IP allowlist, bearer token (signature, expiry),
 * then revocation, membership and project allowlist from a <= 1 s cache.
 */
export function createAccessControl(
  deps: ControlDeps,
): AccessControl & { invalidate(): void; close(): Promise<void> } {
  const globalRanges = configuredRanges(deps.config.ipAllow, 'ipAllow');
  const checkAddress = addressCheck(configuredRanges(deps.config.trustedProxies, 'trustedProxies'));
  const tokenStates = createTokenStateCache(deps.db, deps.config.revocationCacheMs);
  // A token string that verified once verifies again: caching skips the signature check on the
  // hot path. Expiry is still checked per request from the cached claims.
  const verified = new Map<string, TokenClaims>();
  const lastUsedWrites = new Map<string, number>();
  const pendingWrites = new Set<Promise<void>>();

  async function claimsOf(token: string): Promise<TokenClaims> {
    let claims = verified.get(token);
    if (!claims) {
      const result = await verifyToken(deps.keys, token);
      if (result.ok) claims = result.claims;
      else if (result.expiredAt)
        throw gatewayErrors.create('gateway_token_expired', { expiredAt: result.expiredAt.toISOString() });
      else throw invalid(result.reason);
      if (verified.size >= VERIFIED_MAX) verified.clear();
      verified.set(token, claims);
    }
    if (claims.exp * 1000 <= Date.now()) {
      verified.delete(token);
      throw gatewayErrors.create('gateway_token_expired', {
        expiredAt: new Date(claims.exp * 1000).toISOString(),
      });
    }
    return claims;
  }

  /** last_used_at at most once per interval per token, off the request path. */
  function touch(jti: string): void {
    const now = Date.now();
    const last = lastUsedWrites.get(jti);
    if (last !== undefined && now - last < deps.config.lastUsedIntervalMs) return;
    if (lastUsedWrites.size >= VERIFIED_MAX) lastUsedWrites.clear();
    lastUsedWrites.set(jti, now);
    const write = deps.db
      .updateTable('access_tokens')
      .set({ last_used_at: new Date(now).toISOString() })
      .where('jti', '=', jti)
      .execute()
      .then(
        () => {},
        (error: unknown) => deps.log.warn({ err: error }, 'could not record token last use'),
      )
      .finally(() => pendingWrites.delete(write));
    pendingWrites.add(write);
  }

  async function authenticate(
    request: FastifyRequest,
    sources: readonly TokenSource[] = DEFAULT_TOKEN_SOURCES,
  ): Promise<Principal> {
    checkAddress(request, globalRanges, 'gateway');
    const claims = await claimsOf(tokenOf(request, sources));
    const state = await tokenStates.get(claims.jti);
    const refused = refusal(claims, state);
    if (refused !== undefined || !state) throw invalid(refused ?? 'unknown token');
    refuseInactiveMember(state);
    checkAddress(request, state.projectRanges, { project: state.projectSlug });
    touch(claims.jti);
    const principal: Principal = {
      userId: state.userId,
      email: state.email,
      projectId: state.projectId,
      projectSlug: state.projectSlug,
      tokenId: claims.jti,
      tokenExpiresAt: new Date(claims.exp * 1000),
      limits: state.limits,
    };
    noteCaller(request, principal);
    return principal;
  }

  return {
    authenticate,
    invalidate: tokenStates.invalidate,
    close: async () => {
      await Promise.all(pendingWrites);
    },
  };
}
