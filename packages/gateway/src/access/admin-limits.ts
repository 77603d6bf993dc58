/**
 * Rate limits of a project, set by gateway admins: for the project as a whole and for each of
 * its tokens. Read on the request path with the token's state (token-state.ts), so a change
 * reaches every instance within the token-state cache time (at most 1 s). Every change is
 * written to the project's audit trail.
 */
import type { PrincipalLimits, RateLimits } from '../contracts.ts';
import type { RateLimitScope, RateLimitsTable } from '../db/schema.ts';
import { AccessAdminError } from './admin-errors.ts';
import { type Db, findProject, nowIso } from './admin.ts';
import { type Actor, inTransaction, recordAudit } from './audit.ts';

export const LIMIT_SCOPES: readonly RateLimitScope[] = ['project', 'token'];

/** A change per dimension: a number sets the limit, null removes it, absent keeps it. */
export interface LimitChange {
  readonly requestsPerMinute?: number | null;
  readonly tokensPerMinute?: number | null;
  readonly concurrentRequests?: number | null;
}

const MAX_LIMIT = Number.MAX_SAFE_INTEGER;
const COLUMNS = {
  requestsPerMinute: 'requests_per_minute',
  tokensPerMinute: 'tokens_per_minute',
  concurrentRequests: 'concurrent_requests',
} as const;

type Row = Pick<RateLimitsTable, 'requests_per_minute' | 'tokens_per_minute' | 'concurrent_requests'>;

/** The limits a row states; columns left NULL are no limit. */
export function limitsOfRow(row: Partial<Row> | undefined): RateLimits {
  const limits: { -readonly [K in keyof RateLimits]: number } = {};
  for (const [name, column] of Object.entries(COLUMNS) as [keyof RateLimits, keyof Row][]) {
    const value = row?.[column];
    if (value !== null && value !== undefined) limits[name] = Number(value);
  }
  return limits;
}

function checked(change: LimitChange): Partial<Row> {
  const row: Partial<Row> = {};
  for (const [name, column] of Object.entries(COLUMNS) as [keyof LimitChange, keyof Row][]) {
    const value = change[name];
    if (value === undefined) continue;
    if (value !== null && !(Number.isSafeInteger(value) && value >= 0 && value <= MAX_LIMIT))
      throw new AccessAdminError(
        'invalid_limit',
        `${name} must be a whole number from 0 up, or none; got '${value}'.`,
      );
    row[column] = value;
  }
  return row;
}

/** `60 requests/min, 4 at once`, or `none`: how gatewayctl and the audit trail show limits. */
export function describeLimits(limits: RateLimits): string {
  const parts = [
    limits.requestsPerMinute === undefined ? undefined : `${limits.requestsPerMinute} requests/min`,
    limits.tokensPerMinute === undefined ? undefined : `${limits.tokensPerMinute} tokens/min`,
    limits.concurrentRequests === undefined ? undefined : `${limits.concurrentRequests} at once`,
  ].filter((part) => part !== undefined);
  return parts.length === 0 ? 'none' : parts.join(', ');
}

export async function setRateLimits(
  db: Db,
  input: { slug: string; scope: string; change: LimitChange; actor?: Actor },
): Promise<RateLimits> {
  const project = await findProject(db, input.slug);
  const scope = input.scope;
  if (!(LIMIT_SCOPES as readonly string[]).includes(scope))
    throw new AccessAdminError('invalid_limit', `The scope is 'project' or 'token', not '${scope}'.`);
  const row = checked(input.change);
  const updatedAt = nowIso();
  const where = { project_id: project.id, scope: scope as RateLimitScope };
  return inTransaction(db, async (trx) => {
    const before = await scopeLimits(trx, where);
    await trx
      .insertInto('rate_limits')
      .values({ ...where, ...row, updated_at: updatedAt })
      .onConflict((oc) => oc.columns(['project_id', 'scope']).doUpdateSet({ ...row, updated_at: updatedAt }))
      .execute();
    const after = await scopeLimits(trx, where);
    await recordAudit(trx, input.actor, {
      projectId: project.id,
      action: 'limits.set',
      subject: scope,
      detail: `${describeLimits(before)} -> ${describeLimits(after)}`,
    });
    return after;
  });
}

async function scopeLimits(
  db: Db,
  where: { project_id: number; scope: RateLimitScope },
): Promise<RateLimits> {
  const row = await db
    .selectFrom('rate_limits')
    .selectAll()
    .where('project_id', '=', where.project_id)
    .where('scope', '=', where.scope)
    .executeTakeFirst();
  return limitsOfRow(row);
}

export async function projectRateLimits(db: Db, slug: string): Promise<PrincipalLimits> {
  const project = await findProject(db, slug);
  const rows = await db.selectFrom('rate_limits').selectAll().where('project_id', '=', project.id).execute();
  return {
    project: limitsOfRow(rows.find((row) => row.scope === 'project')),
    token: limitsOfRow(rows.find((row) => row.scope === 'token')),
  };
}
