/**
 * Read-only views of accounts for the dashboard: what a user may see of projects, members,
 * allocations and their own tokens. Writes go through admin.ts, as gatewayctl's do.
 *
 * Who sees a project is decided here, once (projectViewFor): its approved members and gateway
 * admins. To anyone else a project that exists and one that does not look the same.
 */
import type { MembershipStatus } from '../db/schema.ts';
import { type Db, nowIso, type User } from './admin.ts';

export interface ProjectMembership {
  readonly slug: string;
  readonly status: MembershipStatus;
  readonly isAdmin: boolean;
}

export interface Bucket {
  readonly provider: string;
  readonly allocatedMicros: number;
  readonly spentMicros: number;
}

/** A project as one user sees it; a membership other than approved only for a gateway admin. */
export interface ProjectView {
  readonly id: number;
  readonly slug: string;
  readonly membership: { readonly status: MembershipStatus; readonly isAdmin: boolean } | undefined;
  /** Approves members: a project admin with an approved membership, or a gateway admin. */
  readonly canAdminister: boolean;
  readonly buckets: readonly Bucket[];
}

export interface MemberRow {
  readonly email: string;
  readonly status: MembershipStatus;
  readonly isAdmin: boolean;
  readonly requestedAt: string;
}

export interface OwnTokenRow {
  readonly jti: string;
  readonly description: string;
  readonly createdAt: string;
  readonly expiresAt: string;
  readonly lastUsedAt: string | null;
  readonly state: 'active' | 'expired' | 'revoked';
}

/**
 * The projects the user is an approved member of. Pending requests are not listed: a request
 * for an unknown name records nothing, so listing the pending ones would tell the requester
 * which names exist. Revoked memberships are not listed either: the project is no longer theirs.
 */
export async function membershipsOf(db: Db, userId: number): Promise<ProjectMembership[]> {
  const rows = await db
    .selectFrom('memberships')
    .innerJoin('projects', 'projects.id', 'memberships.project_id')
    .select(['projects.slug', 'memberships.status', 'memberships.is_admin'])
    .where('memberships.user_id', '=', userId)
    .where('memberships.status', '=', 'approved')
    .orderBy('projects.slug')
    .execute();
  return rows.map((row) => ({ slug: row.slug, status: row.status, isAdmin: row.is_admin === 1 }));
}

export async function allProjectSlugs(db: Db): Promise<string[]> {
  const rows = await db.selectFrom('projects').select('slug').orderBy('slug').execute();
  return rows.map((row) => row.slug);
}

/**
 * The project as `user` may see it: an approved member or a gateway admin. Undefined when it
 * does not exist and when the user may not see it, alike: pending and revoked members and
 * outsiders learn nothing of it (not its allocations, usage, members or tokens, not even that
 * it exists). Every dashboard page of a project starts here.
 */
export async function projectViewFor(db: Db, slug: string, user: User): Promise<ProjectView | undefined> {
  const project = await db
    .selectFrom('projects')
    .select(['id', 'slug'])
    .where('slug', '=', slug)
    .executeTakeFirst();
  if (!project) return undefined;
  const row = await db
    .selectFrom('memberships')
    .select(['status', 'is_admin'])
    .where('project_id', '=', project.id)
    .where('user_id', '=', user.id)
    .executeTakeFirst();
  if (row?.status !== 'approved' && !user.isAdmin) return undefined;
  const membership = row ? { status: row.status, isAdmin: row.is_admin === 1 } : undefined;
  const buckets = await db
    .selectFrom('allocations')
    .select(['provider', 'allocated_micros', 'spent_micros'])
    .where('project_id', '=', project.id)
    .orderBy('provider')
    .execute();
  return {
    id: project.id,
    slug: project.slug,
    membership,
    canAdminister: user.isAdmin || (membership?.status === 'approved' && membership.isAdmin),
    buckets: buckets.map((b) => ({
      provider: b.provider,
      allocatedMicros: Number(b.allocated_micros),
      spentMicros: Number(b.spent_micros),
    })),
  };
}

export async function membersOf(db: Db, projectId: number): Promise<MemberRow[]> {
  const rows = await db
    .selectFrom('memberships')
    .innerJoin('users', 'users.id', 'memberships.user_id')
    .select(['users.email', 'memberships.status', 'memberships.is_admin', 'memberships.requested_at'])
    .where('memberships.project_id', '=', projectId)
    .orderBy('users.email')
    .execute();
  return rows.map((row) => ({
    email: row.email,
    status: row.status,
    isAdmin: row.is_admin === 1,
    requestedAt: row.requested_at,
  }));
}

/** The user's own tokens for one project, newest first. */
export async function ownTokens(db: Db, userId: number, projectId: number): Promise<OwnTokenRow[]> {
  const rows = await db
    .selectFrom('access_tokens')
    .select(['jti', 'description', 'created_at', 'expires_at', 'last_used_at', 'revoked_at'])
    .where('user_id', '=', userId)
    .where('project_id', '=', projectId)
    .orderBy('created_at', 'desc')
    .execute();
  const now = nowIso();
  return rows.map((row) => ({
    jti: row.jti,
    description: row.description,
    createdAt: row.created_at,
    expiresAt: row.expires_at,
    lastUsedAt: row.last_used_at,
    state: row.revoked_at ? 'revoked' : row.expires_at <= now ? 'expired' : 'active',
  }));
}
