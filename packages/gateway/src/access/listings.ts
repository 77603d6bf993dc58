/**
 * Read-only listings for operators (gatewayctl's `list` commands, and whatever else administers
 * the gateway): every user, every project with its counts, the members of one project. Project
 * data for end users goes through directory.ts, which checks who is asking.
 */
import { sql } from 'kysely';
import type { Db } from './admin.ts';
import { AccessAdminError, findProject, findUser } from './admin.ts';
import { type MemberRow, membersOf } from './directory.ts';

export interface UserListing {
  readonly id: number;
  readonly email: string;
  readonly isAdmin: boolean;
  readonly createdAt: string;
  /** Projects with an approved membership. */
  readonly projects: number;
}

export interface ProjectListing {
  readonly id: number;
  readonly slug: string;
  readonly createdAt: string;
  readonly ipAllow: readonly string[];
  readonly approvedMembers: number;
  readonly pendingMembers: number;
}

/** Every user by email, or (`email` given) that user alone. */
export async function listUsers(db: Db, email?: string): Promise<UserListing[]> {
  const user = email === undefined ? undefined : await findUser(db, email);
  let query = db
    .selectFrom('users')
    .leftJoin('memberships', (join) =>
      join.onRef('memberships.user_id', '=', 'users.id').on('memberships.status', '=', 'approved'),
    )
    .select(['users.id', 'users.email', 'users.is_admin', 'users.created_at'])
    .select((eb) => eb.fn.count<number>('memberships.project_id').as('projects'))
    .groupBy(['users.id', 'users.email', 'users.is_admin', 'users.created_at']);
  if (user) query = query.where('users.id', '=', user.id);
  const rows = await query.orderBy('users.email').execute();
  return rows.map((row) => ({
    id: row.id,
    email: row.email,
    isAdmin: row.is_admin === 1,
    createdAt: row.created_at,
    projects: Number(row.projects),
  }));
}

/** Every project by slug, or (`slug` given) that project alone. */
export async function listProjects(db: Db, slug?: string): Promise<ProjectListing[]> {
  const project = slug === undefined ? undefined : await findProject(db, slug);
  let query = db
    .selectFrom('projects')
    .leftJoin('memberships', 'memberships.project_id', 'projects.id')
    .select(['projects.id', 'projects.slug', 'projects.created_at', 'projects.ip_allow'])
    .select(sql<number>`count(case when memberships.status = 'approved' then 1 end)`.as('approved'))
    .select(sql<number>`count(case when memberships.status = 'pending' then 1 end)`.as('pending'))
    .groupBy(['projects.id', 'projects.slug', 'projects.created_at', 'projects.ip_allow']);
  if (project) query = query.where('projects.id', '=', project.id);
  const rows = await query.orderBy('projects.slug').execute();
  return rows.map((row) => ({
    id: row.id,
    slug: row.slug,
    createdAt: row.created_at,
    ipAllow: JSON.parse(row.ip_allow) as string[],
    approvedMembers: Number(row.approved),
    pendingMembers: Number(row.pending),
  }));
}

/** Every membership of a project, any status; an unknown project is refused by name. */
export async function listMembers(db: Db, slug: string): Promise<MemberRow[]> {
  const project = await findProject(db, slug);
  return membersOf(db, project.id);
}

/** One membership of a project, any status; refused by name when there is none. */
export async function findMember(db: Db, slug: string, email: string): Promise<MemberRow> {
  const [project, user] = [await findProject(db, slug), await findUser(db, email)];
  const member = (await membersOf(db, project.id)).find((row) => row.email === user.email);
  if (!member)
    throw new AccessAdminError('not_member', `${user.email} is not a member of '${project.slug}'.`);
  return member;
}
