/**
 * The audit trail of account changes. admin.ts and admin-tokens.ts write it in the same
 * transaction as the change, so gatewayctl and the dashboard both leave a trace and a change
 * without its entry cannot happen. Project admins read it in the dashboard.
 */
import type { Kysely, Transaction } from 'kysely';
import type { AuditAction, GatewayDatabase } from '../db/schema.ts';

/** Who made a change: a signed-in dashboard user, or the operator running gatewayctl. */
export interface Actor {
  readonly userId: number | null;
  readonly label: string;
}

/** The default actor of the access functions: an operator at the command line. */
export const OPERATOR: Actor = Object.freeze({ userId: null, label: 'gatewayctl' });

export function userActor(user: { readonly id: number; readonly email: string }): Actor {
  return { userId: user.id, label: user.email };
}

export interface AuditEntry {
  readonly projectId: number;
  readonly action: AuditAction;
  readonly subject: string;
  readonly detail: string;
}

export interface AuditEvent extends Omit<AuditEntry, 'projectId'> {
  readonly id: number;
  readonly actor: string;
  readonly actorIsUser: boolean;
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
 * One page of a project's trail, newest first. Keyset pagination by id (`before`): a page
 * stays stable while new events are written, which an offset would not.
 */
export async function auditTrail(
  db: Db,
  projectId: number,
  options: { before?: number; limit: number },
): Promise<AuditPage> {
  let query = db
    .selectFrom('audit_events')
    .select(['id', 'actor', 'actor_user_id', 'action', 'subject', 'detail', 'created_at'])
    .where('project_id', '=', projectId);
  if (options.before !== undefined) query = query.where('id', '<', options.before);
  const rows = await query
    .orderBy('id', 'desc')
    .limit(options.limit + 1)
    .execute();
  const page = rows.slice(0, options.limit);
  const last = page.at(-1);
  return {
    events: page.map((row) => ({
      id: Number(row.id),
      actor: row.actor,
      actorIsUser: row.actor_user_id !== null,
      action: row.action,
      subject: row.subject,
      detail: row.detail,
      createdAt: row.created_at,
    })),
    olderBefore: rows.length > options.limit && last ? Number(last.id) : undefined,
  };
}
