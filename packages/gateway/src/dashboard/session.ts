/**
 * Server-side dashboard sessions. The browser holds a random id in an HttpOnly cookie; the
 * table holds its SHA-256 with the user, the last request and the absolute expiry. Signing in
 * always creates a new id (no fixation), signing out deletes the row.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { GatewayDatabase } from '../db/schema.ts';

export interface Session {
  readonly idHash: string;
  readonly userId: number;
  readonly idToken: string | null;
}

export interface PendingLogin {
  readonly state: string;
  readonly nonce: string;
  readonly codeVerifier: string;
  readonly returnTo: string;
}

export interface SessionPolicy {
  readonly idleMs: number;
  readonly maxAgeMs: number;
}

/** A sign-in must come back from the identity provider within this time. */
const LOGIN_TTL_MS = 10 * 60_000;
/**
 * seen_at is written at most this often, so a session may end up to this much before its idle
 * timeout: a tenth of the timeout, at most a minute. A fixed minute would end a session with a
 * timeout below a minute however busy it was.
 */
function touchEveryMs(idleMs: number): number {
  return Math.min(60_000, Math.floor(idleMs / 10));
}

export function hashId(id: string): string {
  return createHash('sha256').update(id).digest('hex');
}

function newId(): string {
  return randomBytes(32).toString('base64url');
}

export function createSessionStore(db: Kysely<GatewayDatabase>, policy: SessionPolicy) {
  const touchEvery = touchEveryMs(policy.idleMs);
  async function create(userId: number, idToken: string | null): Promise<string> {
    const id = newId();
    const now = Date.now();
    // Expired rows of everyone are cleared on sign-in: no separate sweeper needed.
    await db
      .deleteFrom('dashboard_sessions')
      .where('expires_at', '<=', new Date(now).toISOString())
      .execute();
    await db
      .insertInto('dashboard_sessions')
      .values({
        id_hash: hashId(id),
        user_id: userId,
        created_at: new Date(now).toISOString(),
        seen_at: new Date(now).toISOString(),
        expires_at: new Date(now + policy.maxAgeMs).toISOString(),
        id_token: idToken,
      })
      .execute();
    return id;
  }

  /** The live session for a cookie value; an idle or expired one is deleted and not returned. */
  async function resolve(id: string): Promise<Session | undefined> {
    const idHash = hashId(id);
    const row = await db
      .selectFrom('dashboard_sessions')
      .selectAll()
      .where('id_hash', '=', idHash)
      .executeTakeFirst();
    if (!row) return undefined;
    const now = Date.now();
    const seen = Date.parse(row.seen_at);
    if (Date.parse(row.expires_at) <= now || seen + policy.idleMs <= now) {
      await db.deleteFrom('dashboard_sessions').where('id_hash', '=', idHash).execute();
      return undefined;
    }
    if (now - seen >= touchEvery)
      await db
        .updateTable('dashboard_sessions')
        .set({ seen_at: new Date(now).toISOString() })
        .where('id_hash', '=', idHash)
        .execute();
    return { idHash, userId: row.user_id, idToken: row.id_token };
  }

  async function destroy(idHash: string): Promise<void> {
    await db.deleteFrom('dashboard_sessions').where('id_hash', '=', idHash).execute();
  }

  async function startLogin(login: PendingLogin): Promise<string> {
    const id = newId();
    const now = Date.now();
    await db
      .deleteFrom('dashboard_logins')
      .where('created_at', '<=', new Date(now - LOGIN_TTL_MS).toISOString())
      .execute();
    await db
      .insertInto('dashboard_logins')
      .values({
        id_hash: hashId(id),
        state: login.state,
        nonce: login.nonce,
        code_verifier: login.codeVerifier,
        return_to: login.returnTo,
        created_at: new Date(now).toISOString(),
      })
      .execute();
    return id;
  }

  /** The sign-in started with this cookie value, at most once and within LOGIN_TTL_MS. */
  async function takeLogin(id: string): Promise<PendingLogin | undefined> {
    const idHash = hashId(id);
    const row = await db
      .selectFrom('dashboard_logins')
      .selectAll()
      .where('id_hash', '=', idHash)
      .executeTakeFirst();
    if (!row) return undefined;
    const taken = await db.deleteFrom('dashboard_logins').where('id_hash', '=', idHash).executeTakeFirst();
    if (Number(taken.numDeletedRows) !== 1) return undefined;
    if (Date.parse(row.created_at) + LOGIN_TTL_MS <= Date.now()) return undefined;
    return { state: row.state, nonce: row.nonce, codeVerifier: row.code_verifier, returnTo: row.return_to };
  }

  return { create, resolve, destroy, startLogin, takeLogin };
}

export type SessionStore = ReturnType<typeof createSessionStore>;
