/**
 * The audit trail of account changes. admin.ts, admin-tokens.ts, admin-limits.ts and
 * admin-keys.ts write it in the same transaction as the change, so gatewayctl, the dashboard and
 * the admin API all leave a trace and a change without its entry cannot happen. Project admins
 * read a project's trail in the dashboard; the admin API reads every entry.
 */
import type { Kysely, Transaction } from 'kysely';
import type { AuditAction, GatewayDatabase } from '../db/schema.ts';

/** Who made a change: a signed-in dashboard user, an admin key (admin API), or the operator running gatewayctl. */
export interface Actor {
  readonly userId: number | null;
  readonly adminKeyId?: number;
  readonly label: string;
}

/** The default actor of the access functions: an operator at the command line. */
export const OPERATOR: Actor = Object.freeze({ userId: null, label: 'gatewayctl' });

export function userActor(user: { readonly id: number; readonly email: string }): Actor {
  return { userId: user.id, label: user.email };
}

export function adminKeyActor(key: { readonly id: number; readonly description: string }): Actor {
  return { userId: null, adminKeyId: key.id, label: `admin key ${key.id} (${key.description})` };
}

export interface AuditEntry {
  /** The project changed; null for a change of no project (a user, an admin key). */
  readonly projectId: number | null;
  readonly action: AuditAction;
  readonly subject: string;
  readonly detail: string;
}

export interface AuditEvent extends Omit<AuditEntry, 'projectId'> {
  readonly id: number;
  /** The project's slug; null for a change of no project. */
  readonly project: string | null;
  readonly actor: string;
  readonly actorIsUser: boolean;
  /** The admin key that acted through the admin API, else null. */
  readonly actorAdminKeyId: number | null;
  readonly createdAt: string;
}

type Db = Kysely<GatewayDatabase>;

/** Runs `work` in a transaction, or inside the caller's when `db` already is one. */
export function inTransaction<T>(db: Db, work: (trx: Db) => Promise<T>): Promise<T> {
  if (db.isTransaction) return work(db);
  return db.transaction().execute((trx: Transaction<GatewayDatabase>) => work(trx));
}

export async function recordAudit(db: Db, actor: Actor | undefined, entry: AuditEntry): Promise<void> {
  const who = actor ?? OPERATOR;
  await db
    .insertInto('audit_events')
    .values({
      project_id: entry.projectId,
      actor_user_id: who.userId,
      actor_admin_key_id: who.adminKeyId ?? null,
      actor: who.label,
      action: entry.action,
      subject: entry.subject,
      detail: entry.detail,
      created_at: new Date().toISOString(),
    })
    .execute();
}

export interface AuditPage {
  readonly events: readonly AuditEvent[];
  /** The `before` of the next (older) page, or undefined on the last page. */
  readonly olderBefore: number | undefined;
}

/**
 * One page of a project's trail (or, with `projectId` undefined, of every entry), newest first.
 * Keyset pagination by id (`before`): a page stays stable while new events are written, which
 * an offset would not.
 */
export async function auditTrail(
  db: Db,
  projectId: number | undefined,
  options: { before?: number; limit: number },
): Promise<AuditPage> {
  let query = db
    .selectFrom('audit_events as a')
    .leftJoin('projects as p', 'p.id', 'a.project_id')
    .select(['a.id', 'p.slug', 'a.actor', 'a.actor_user_id', 'a.actor_admin_key_id'])
    .select(['a.action', 'a.subject', 'a.detail', 'a.created_at']);
  if (projectId !== undefined) query = query.where('a.project_id', '=', projectId);
  if (options.before !== undefined) query = query.where('a.id', '<', options.before);
  const rows = await query
    .orderBy('a.id', 'desc')
    .limit(options.limit + 1)
    .execute();
  const page = rows.slice(0, options.limit);
  const last = page.at(-1);
  return {
    events: page.map((row) => ({
      id: Number(row.id),
      project: row.slug,
      actor: row.actor,
      actorIsUser: row.actor_user_id !== null,
      actorAdminKeyId: row.actor_admin_key_id === null ? null : Number(row.actor_admin_key_id),
      action: row.action,
      subject: row.subject,
      detail: row.detail,
      createdAt: row.created_at,
    })),
    olderBefore: rows.length > options.limit && last ? Number(last.id) : undefined,
  };
}
