import type { Meters } from '@app/provider-adapters/model/meters.ts';
import { sql } from 'kysely';
import { byProviderOrder } from '../contracts.ts';
import { groupKey, meterTotals } from '../db/usage-meters.ts';
import { type Db, findProject, findUser, nowIso } from './admin.ts';
import { AccessAdminError } from './admin-errors.ts';
import { type Actor, inTransaction, recordAudit } from './audit.ts';
import { parseDuration } from './duration.ts';
import type { SigningKeys } from './keys.ts';
import { signToken } from './tokens.ts';

/** Lifetimes from the access config: the default and the cap. */
export interface TokenPolicy {
  readonly defaultTtl: string;
  readonly maxTtl: string;
}

export interface IssuedToken {
  /** The complete token: shown once, never stored. */
  readonly token: string;
  readonly jti: string;
  readonly userId: number;
  readonly projectId: number;
  readonly expiresAt: Date;
}

/** The lifetime asked for (or the policy's default) in ms; refused when unreadable or over the cap. */
export function lifetimeMs(ttl: string | undefined, policy: TokenPolicy, what = 'A token'): number {
  const requested = ttl ?? policy.defaultTtl;
  const ms = parseDuration(requested);
  if (ms === undefined)
    throw new AccessAdminError(
      'invalid_ttl',
      `'${requested}' is not a lifetime; use a number and s, m, h or d (e.g. 30m, 7d).`,
    );
  if (ms > (parseDuration(policy.maxTtl) ?? 0))
    throw new AccessAdminError(
      'invalid_ttl',
      `${what} may live at most ${policy.maxTtl}; '${requested}' is longer.`,
    );
  return ms;
}

/**
 * Issues a personal access token: only to an approved member of a project that has an
 * allocation. Only the `jti` is stored; the returned token is the one and only copy.
 */
export async function issueToken(
  db: Db,
  keys: SigningKeys,
  policy: TokenPolicy,
  input: { email: string; slug: string; ttl?: string; description?: string; actor?: Actor },
): Promise<IssuedToken> {
  const ms = lifetimeMs(input.ttl, policy);
  const [user, project] = [await findUser(db, input.email), await findProject(db, input.slug)];
  const membership = await db
    .selectFrom('memberships')
    .select('status')
    .where('project_id', '=', project.id)
    .where('user_id', '=', user.id)
    .executeTakeFirst();
  if (membership?.status !== 'approved')
    throw new AccessAdminError(
      'membership_not_approved',
      `${user.email} is not an approved member of '${project.slug}' (${membership?.status ?? 'no membership'}); a project admin must approve the membership first.`,
    );
  const allocation = await db
    .selectFrom('allocations')
    .select('provider')
    .where('project_id', '=', project.id)
    .where('allocated_micros', '>', 0)
    .executeTakeFirst();
  if (!allocation)
    throw new AccessAdminError(
      'no_allocation',
      `Project '${project.slug}' has no gateway allocation; set one first.`,
      `Run: npx gatewayctl allocations set ${project.slug} PROVIDER USD`,
    );
  // Whole seconds, as in the JWT, so the stored expiry and the token's `exp` agree exactly.
  const issuedAt = new Date(Math.floor(Date.now() / 1000) * 1000);
  const expiresAt = new Date(issuedAt.getTime() + ms);
  const { token, jti } = await signToken(keys, {
    userId: user.id,
    projectSlug: project.slug,
    issuedAt,
    expiresAt,
  });
  const description = input.description?.trim() ?? '';
  await inTransaction(db, async (trx) => {
    await trx
      .insertInto('access_tokens')
      .values({
        jti,
        user_id: user.id,
        project_id: project.id,
        description,
        created_at: issuedAt.toISOString(),
        expires_at: expiresAt.toISOString(),
      })
      .execute();
    await recordAudit(trx, input.actor, {
      projectId: project.id,
      action: 'token.issue',
      subject: user.email,
      detail: `${tokenName(description, jti)}, expires ${expiresAt.toISOString()}`,
    });
  });
  return { token, jti, userId: user.id, projectId: project.id, expiresAt };
}

export interface TokenInfo {
  readonly jti: string;
  readonly projectSlug: string;
  readonly email: string;
  readonly description: string;
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly lastUsedAt: string | null;
  readonly revokedAt: string | null;
  readonly state: 'active' | 'expired' | 'revoked';
}

/** Whose tokens: one user's (every project), one project's (every member), or both; or one token by id. */
export interface TokenFilter {
  readonly email?: string;
  readonly project?: string;
  readonly jti?: string;
}

/** Tokens newest first; an unknown user or project is refused by name, not listed as empty. */
export async function listTokens(db: Db, filter: TokenFilter): Promise<TokenInfo[]> {
  const user = filter.email === undefined ? undefined : await findUser(db, filter.email);
  const project = filter.project === undefined ? undefined : await findProject(db, filter.project);
  let query = db
    .selectFrom('access_tokens')
    .innerJoin('projects', 'projects.id', 'access_tokens.project_id')
    .innerJoin('users', 'users.id', 'access_tokens.user_id')
    .select([
      'jti',
      'projects.slug',
      'users.email',
      'description',
      'access_tokens.created_at',
      'expires_at',
      'last_used_at',
      'revoked_at',
    ]);
  if (user) query = query.where('access_tokens.user_id', '=', user.id);
  if (project) query = query.where('access_tokens.project_id', '=', project.id);
  if (filter.jti !== undefined) query = query.where('access_tokens.jti', '=', filter.jti);
  const rows = await query.orderBy('access_tokens.created_at', 'desc').execute();
  const now = nowIso();
  return rows.map((row) => ({
    jti: row.jti,
    projectSlug: row.slug,
    email: row.email,
    description: row.description,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
    state: row.revoked_at ? 'revoked' : row.expires_at <= now ? 'expired' : 'active',
  }));
}

function unknownToken(jti: string): AccessAdminError {
  return new AccessAdminError(
    'unknown_token',
    `No token with id '${jti}'.`,
    'List token ids with: npx gatewayctl tokens list --email EMAIL (or --project SLUG)',
  );
}

/** One token by id (never the token itself); an unknown id is refused. */
export async function findToken(db: Db, jti: string): Promise<TokenInfo> {
  const [token] = await listTokens(db, { jti });
  if (!token) throw unknownToken(jti);
  return token;
}

/** How the audit trail names a token: its description and id (never the token itself). */
function tokenName(description: string, jti: string): string {
  return `token '${description || 'no description'}' (id ${jti})`;
}

/** Revokes a token by `jti`; idempotent. Takes effect within the revocation cache time. */
export async function revokeToken(
  db: Db,
  jti: string,
  actor?: Actor,
): Promise<{ jti: string; revokedAt: string }> {
  const row = await db
    .selectFrom('access_tokens as t')
    .innerJoin('users as u', 'u.id', 't.user_id')
    .select(['t.revoked_at', 't.project_id', 't.description', 'u.email'])
    .where('t.jti', '=', jti)
    .executeTakeFirst();
  if (!row) throw unknownToken(jti);
  if (row.revoked_at) return { jti, revokedAt: row.revoked_at };
  const revokedAt = nowIso();
  await inTransaction(db, async (trx) => {
    await trx.updateTable('access_tokens').set({ revoked_at: revokedAt }).where('jti', '=', jti).execute();
    await recordAudit(trx, actor, {
      projectId: row.project_id,
      action: 'token.revoke',
      subject: row.email,
      detail: tokenName(row.description, jti),
    });
  });
  return { jti, revokedAt };
}

export interface BucketUsage {
  readonly provider: string;
  readonly allocatedMicros: number;
  readonly spentMicros: number;
  readonly reservedMicros: number;
  /** A failed-over request counts once (0010's `new_request`). */
  readonly requests: number;
  readonly promptTokens: number;
  readonly completionTokens: number;
  /** Totals per meter of the bucket's ledger rows. */
  readonly meters: Meters;
}

/** Per provider bucket of a project: the allocation counters and ledger totals. */
export async function projectUsage(db: Db, slug: string): Promise<BucketUsage[]> {
  const project = await findProject(db, slug);
  const buckets = await db
    .selectFrom('allocations')
    .selectAll()
    .where('project_id', '=', project.id)
    .execute();
  const rows = db.selectFrom('usage').where('project_id', '=', project.id);
  const [totals, meters] = await Promise.all([
    rows
      .select([
        'provider',
        sql<number>`coalesce(sum(new_request), 0)`.as('requests'),
        sql<number>`coalesce(sum(prompt_tokens), 0)`.as('prompt'),
        sql<number>`coalesce(sum(completion_tokens), 0)`.as('completion'),
      ])
      .groupBy('provider')
      .execute(),
    meterTotals(db, rows.select(['provider', 'meters']), ['provider']),
  ]);
  return buckets
    .map((bucket) => {
      const total = totals.find((t) => t.provider === bucket.provider);
      return {
        provider: bucket.provider,
        allocatedMicros: bucket.allocated_micros,
        spentMicros: bucket.spent_micros,
        reservedMicros: bucket.reserved_micros,
        requests: Number(total?.requests ?? 0),
        promptTokens: Number(total?.prompt ?? 0),
        completionTokens: Number(total?.completion ?? 0),
        meters: meters.get(groupKey([bucket.provider])) ?? {},
      };
    })
    .sort((a, b) => byProviderOrder(a.provider, b.provider));
}
