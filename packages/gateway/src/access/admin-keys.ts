/**
 * Admin keys: the credentials of the admin API (/admin/v1), distinct from personal access
 * tokens. A key is an opaque random string with a recognisable prefix (`gwadm_`), shown once;
 * only its SHA-256 is stored (the key has 256 bits of entropy, so a fast hash is enough). Each
 * key has scopes, an expiry and may be revoked. Created, listed and revoked with gatewayctl;
 * every creation and revocation is written to the audit trail.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Selectable } from 'kysely';
import type { AdminKeysTable, AdminScope } from '../db/schema.ts';
import { AccessAdminError } from './admin-errors.ts';
import { lifetimeMs, type TokenPolicy } from './admin-tokens.ts';
import { type Db, nowIso } from './admin.ts';
import { type Actor, inTransaction, recordAudit } from './audit.ts';

export const ADMIN_KEY_PREFIX = 'gwadm_';
/** `read`: the GET routes; `write`: every route that changes something. */
export const ADMIN_SCOPES: readonly AdminScope[] = ['read', 'write'];
export const DEFAULT_ADMIN_SCOPES: readonly AdminScope[] = ['read'];

export interface AdminKeyInfo {
  readonly id: number;
  readonly description: string;
  readonly scopes: readonly AdminScope[];
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly lastUsedAt: string | null;
  readonly revokedAt: string | null;
  readonly state: 'active' | 'expired' | 'revoked';
}

export function isAdminKey(credential: string): boolean {
  return credential.startsWith(ADMIN_KEY_PREFIX);
}

function hashOf(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Scopes as given (`read,write` split on commas too), checked and in a fixed order. */
export function adminScopes(requested: readonly string[]): AdminScope[] {
  const given = requested.flatMap((entry) => entry.split(',')).map((entry) => entry.trim());
  const unknown = given.filter((scope) => !(ADMIN_SCOPES as readonly string[]).includes(scope));
  if (unknown.length > 0 || given.length === 0)
    throw new AccessAdminError(
      'invalid_scope',
      `Scopes are ${ADMIN_SCOPES.join(' and ')} (e.g. read,write); got '${requested.join(',')}'.`,
    );
  return ADMIN_SCOPES.filter((scope) => given.includes(scope));
}

function infoOf(row: Selectable<AdminKeysTable>, now: string): AdminKeyInfo {
  return {
    id: Number(row.id),
    description: row.description,
    scopes: JSON.parse(row.scopes) as AdminScope[],
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
    state: row.revoked_at ? 'revoked' : row.expires_at <= now ? 'expired' : 'active',
  };
}

/** Creates a key; the returned `key` is the one and only copy. */
export async function createAdminKey(
  db: Db,
  policy: TokenPolicy,
  input: { description: string; scopes?: readonly string[]; ttl?: string; actor?: Actor },
): Promise<{ key: string; info: AdminKeyInfo }> {
  const description = input.description.trim();
  if (description === '')
    throw new AccessAdminError('invalid_description', 'An admin key needs a description (what it is for).');
  const scopes = input.scopes === undefined ? [...DEFAULT_ADMIN_SCOPES] : adminScopes(input.scopes);
  const ms = lifetimeMs(input.ttl, policy, 'An admin key');
  const key = `${ADMIN_KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  const createdAt = nowIso();
  const expiresAt = new Date(Date.parse(createdAt) + ms).toISOString();
  const id = await inTransaction(db, async (trx) => {
    const row = await trx
      .insertInto('admin_keys')
      .values({
        key_hash: hashOf(key),
        description,
        scopes: JSON.stringify(scopes),
        created_at: createdAt,
        expires_at: expiresAt,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    await recordAudit(trx, input.actor, {
      projectId: null,
      action: 'admin_key.create',
      subject: `admin key ${row.id}`,
      detail: `'${description}', scopes ${scopes.join(', ')}, expires ${expiresAt}`,
    });
    return row.id;
  });
  const info: AdminKeyInfo = {
    id,
    description,
    scopes,
    createdAt,
    expiresAt,
    lastUsedAt: null,
    revokedAt: null,
    state: 'active',
  };
  return { key, info };
}

/** Every admin key, newest first (never the key itself). */
export async function listAdminKeys(db: Db): Promise<AdminKeyInfo[]> {
  const rows = await db.selectFrom('admin_keys').selectAll().orderBy('id', 'desc').execute();
  const now = nowIso();
  return rows.map((row) => infoOf(row, now));
}

/** Revokes a key by id; idempotent. Refused from the next request on (keys are not cached). */
export async function revokeAdminKey(
  db: Db,
  id: number,
  actor?: Actor,
): Promise<{ id: number; revokedAt: string }> {
  const row = Number.isSafeInteger(id)
    ? await db
        .selectFrom('admin_keys')
        .select(['revoked_at', 'description'])
        .where('id', '=', id)
        .executeTakeFirst()
    : undefined;
  if (!row)
    throw new AccessAdminError(
      'unknown_admin_key',
      `No admin key with id '${id}'.`,
      'List them with: npx gatewayctl admin-keys list',
    );
  if (row.revoked_at) return { id, revokedAt: row.revoked_at };
  const revokedAt = nowIso();
  await inTransaction(db, async (trx) => {
    await trx.updateTable('admin_keys').set({ revoked_at: revokedAt }).where('id', '=', id).execute();
    await recordAudit(trx, actor, {
      projectId: null,
      action: 'admin_key.revoke',
      subject: `admin key ${id}`,
      detail: `'${row.description}'`,
    });
  });
  return { id, revokedAt };
}

/** What the database says about a presented key now; undefined when no key has its hash. */
export async function adminKeyOf(db: Db, key: string): Promise<AdminKeyInfo | undefined> {
  const row = await db
    .selectFrom('admin_keys')
    .selectAll()
    .where('key_hash', '=', hashOf(key))
    .executeTakeFirst();
  return row ? infoOf(row, nowIso()) : undefined;
}

/** Records a use, at most once per `intervalMs` per key. */
export async function noteAdminKeyUse(db: Db, key: AdminKeyInfo, intervalMs: number): Promise<void> {
  const now = Date.now();
  if (key.lastUsedAt !== null && now - Date.parse(key.lastUsedAt) < intervalMs) return;
  await db
    .updateTable('admin_keys')
    .set({ last_used_at: new Date(now).toISOString() })
    .where('id', '=', key.id)
    .execute();
}
