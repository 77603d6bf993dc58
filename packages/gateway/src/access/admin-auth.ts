/**
 * Authentication of the admin API (/admin/v1): the global IP allowlist, then the admin API's
 * own (`GATEWAY_ADMIN_IP_ALLOW`), then an admin key with the scope the route needs. A key is
 * looked up in the database on every request (admin calls are few), so a revocation or expiry
 * takes effect on the next request on every instance, with or without Redis.
 */
import type { FastifyBaseLogger, FastifyRequest } from 'fastify';
import type { AdminScope } from '../db/schema.ts';
import { gatewayErrors } from '../errors.ts';
import type { Db } from './admin.ts';
import { type AdminKeyInfo, adminKeyOf, isAdminKey, noteAdminKeyUse } from './admin-keys.ts';
import { type Actor, adminKeyActor } from './audit.ts';
import type { AccessConfig } from './config.ts';
import { bearerCredential } from './control.ts';
import { addressCheck, configuredRanges } from './ip-errors.ts';

export interface AdminPrincipal {
  readonly key: AdminKeyInfo;
  /** Who the audit trail names for this request's changes. */
  readonly actor: Actor;
}

export type AuthenticateAdmin = (request: FastifyRequest, scope: AdminScope) => Promise<AdminPrincipal>;

function invalid(reason: string) {
  return gatewayErrors.create('admin_key_invalid', { reason });
}

/** The key of `Authorization: Bearer gwadm_...`; a personal access token is refused by name. */
function presentedKey(request: FastifyRequest): string {
  const header = request.headers.authorization;
  if (header === undefined || header.trim() === '') throw gatewayErrors.create('admin_key_missing', {});
  const credential = bearerCredential(header);
  if (!credential) throw invalid('the Authorization header is not "Bearer <admin key>"');
  if (isAdminKey(credential)) return credential;
  throw invalid(
    credential.split('.').length === 3
      ? 'a personal access token is a credential of /v1, not of the admin API'
      : 'not an admin key (admin keys start with gwadm_)',
  );
}

export function createAdminAuthentication(deps: {
  readonly db: Db;
  readonly config: AccessConfig;
  readonly log: FastifyBaseLogger;
}): AuthenticateAdmin {
  const checkAddress = addressCheck(configuredRanges(deps.config.trustedProxies, 'trustedProxies'));
  const globalRanges = configuredRanges(deps.config.ipAllow, 'ipAllow');
  const adminRanges = configuredRanges(deps.config.adminIpAllow, 'adminIpAllow');

  return async (request, scope) => {
    checkAddress(request, globalRanges, 'gateway');
    checkAddress(request, adminRanges, 'admin API');
    const key = await adminKeyOf(deps.db, presentedKey(request));
    if (!key) throw invalid('unknown admin key');
    if (key.state === 'revoked') throw invalid(`admin key ${key.id} was revoked at ${key.revokedAt}`);
    if (key.state === 'expired')
      throw gatewayErrors.create('admin_key_expired', { expiredAt: key.expiresAt });
    if (!key.scopes.includes(scope))
      throw gatewayErrors.create('admin_scope_missing', { scope, granted: key.scopes });
    await noteAdminKeyUse(deps.db, key, deps.config.lastUsedIntervalMs).catch((error: unknown) =>
      deps.log.warn({ err: error }, 'could not record admin key last use'),
    );
    return { key, actor: adminKeyActor(key) };
  };
}
