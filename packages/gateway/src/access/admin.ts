/**
 * Administrative operations on accounts, projects, memberships and allocations. The
 * gatewayctl CLI, the demo seed, the test helpers and the dashboard all call these, so every
 * rule (who may get a token, what a valid CIDR is) lives in one place, and every change to a
 * project is written to its audit trail (audit.ts) by whoever acted: `actor`, by default the
 * operator (gatewayctl).
 */
import { type Kysely, sql } from 'kysely';
import { isProviderId, PROVIDERS, type ProviderId } from '../contracts.ts';
import type { AuditAction, GatewayDatabase, MembershipStatus } from '../db/schema.ts';
import { formatUsd, MAX_ALLOCATION_USD as MAX_USD } from '../money.ts';
import { AccessAdminError } from './admin-errors.ts';
import { type Actor, inTransaction, recordAudit } from './audit.ts';
import { parseRanges } from './ip.ts';

export { AccessAdminError, type AdminErrorCode } from './admin-errors.ts';
export { type Actor, adminKeyActor, OPERATOR, userActor } from './audit.ts';
export { describeLimits, type LimitChange, projectRateLimits, setRateLimits } from './admin-limits.ts';
export {
  findToken,
  issueToken,
  listTokens,
  projectUsage,
  revokeToken,
  type TokenPolicy,
} from './admin-tokens.ts';

export type Db = Kysely<GatewayDatabase>;

export interface User {
  readonly id: number;
  readonly email: string;
  readonly isAdmin: boolean;
}
export interface Project {
  readonly id: number;
  readonly slug: string;
  readonly ipAllow: readonly string[];
}
export interface Membership {
  readonly projectSlug: string;
  readonly email: string;
  readonly status: MembershipStatus;
  readonly isAdmin: boolean;
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;

export function nowIso(): string {
  return new Date().toISOString();
}

function normaliseEmail(email: string): string {
  const normalised = email.trim().toLowerCase();
  if (!EMAIL.test(normalised))
    throw new AccessAdminError('invalid_email', `'${email}' is not an email address.`);
  return normalised;
}

export async function addUser(
  db: Db,
  input: { email: string; admin?: boolean; actor?: Actor },
): Promise<User> {
  const email = normaliseEmail(input.email);
  const existing = await db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst();
  if (existing) throw new AccessAdminError('duplicate_user', `A user with email ${email} already exists.`);
  const id = await inTransaction(db, async (trx) => {
    const row = await trx
      .insertInto('users')
      .values({ email, is_admin: input.admin ? 1 : 0, created_at: nowIso() })
      .returning('id')
      .executeTakeFirstOrThrow();
    await recordAudit(trx, input.actor, {
      projectId: null,
      action: 'user.create',
      subject: email,
      detail: input.admin ? 'gateway admin' : '',
    });
    return row.id;
  });
  return { id, email, isAdmin: input.admin === true };
}

export async function findUser(db: Db, email: string): Promise<User> {
  const normalised = normaliseEmail(email);
  const row = await db.selectFrom('users').selectAll().where('email', '=', normalised).executeTakeFirst();
  if (!row)
    throw new AccessAdminError(
      'unknown_user',
      `No user with email ${normalised}.`,
      `Create it with: npx gatewayctl users add --email ${normalised}`,
    );
  return { id: row.id, email: row.email, isAdmin: row.is_admin === 1 };
}

/** Validates CIDRs and returns them one per entry (comma-separated input is split). */
export function normaliseIpAllow(entries: readonly string[]): string[] {
  const { ranges, invalid } = parseRanges(entries);
  if (invalid.length > 0)
    throw new AccessAdminError(
      'invalid_cidr',
      `Not an IPv4/IPv6 address or CIDR: ${invalid.join(', ')} (examples: 203.0.113.0/24, 2001:db8::/48).`,
    );
  return ranges.map((range) => range.text);
}

export async function addProject(
  db: Db,
  input: { slug: string; ipAllow?: readonly string[]; actor?: Actor },
): Promise<Project> {
  const slug = input.slug.trim();
  if (!SLUG.test(slug))
    throw new AccessAdminError(
      'invalid_slug',
      `'${input.slug}' is not a valid project slug (lower-case letters, digits and '-', at most 63).`,
    );
  const ipAllow = normaliseIpAllow(input.ipAllow ?? []);
  const existing = await db.selectFrom('projects').select('id').where('slug', '=', slug).executeTakeFirst();
  if (existing) throw new AccessAdminError('duplicate_project', `Project '${slug}' already exists.`);
  const id = await inTransaction(db, async (trx) => {
    const row = await trx
      .insertInto('projects')
      .values({ slug, ip_allow: JSON.stringify(ipAllow), created_at: nowIso() })
      .returning('id')
      .executeTakeFirstOrThrow();
    await recordAudit(trx, input.actor, {
      projectId: row.id,
      action: 'project.create',
      subject: slug,
      detail: `IP allowlist: ${describeAllow(ipAllow)}`,
    });
    return row.id;
  });
  return { id, slug, ipAllow };
}

function describeAllow(ipAllow: readonly string[]): string {
  return ipAllow.length > 0 ? ipAllow.join(', ') : 'any address';
}

/**
 * Replaces a project's IP allowlist (validated as at creation; empty: any address). Tokens
 * follow within the token-state cache time; callers that can also announce it at once.
 */
export async function setProjectIpAllow(
  db: Db,
  input: { slug: string; ipAllow: readonly string[]; actor?: Actor },
): Promise<Project> {
  const ipAllow = normaliseIpAllow(input.ipAllow);
  const project = await findProject(db, input.slug);
  await inTransaction(db, async (trx) => {
    await trx
      .updateTable('projects')
      .set({ ip_allow: JSON.stringify(ipAllow) })
      .where('id', '=', project.id)
      .execute();
    await recordAudit(trx, input.actor, {
      projectId: project.id,
      action: 'project.ip_allow',
      subject: project.slug,
      detail: `${describeAllow(project.ipAllow)} -> ${describeAllow(ipAllow)}`,
    });
  });
  return { ...project, ipAllow };
}

export async function findProject(db: Db, slug: string): Promise<Project> {
  const row = await db.selectFrom('projects').selectAll().where('slug', '=', slug.trim()).executeTakeFirst();
  if (!row)
    throw new AccessAdminError(
      'unknown_project',
      `No project '${slug}'.`,
      `Create it with: npx gatewayctl projects add ${slug}`,
    );
  return { id: row.id, slug: row.slug, ipAllow: JSON.parse(row.ip_allow) as string[] };
}

async function membershipRow(db: Db, project: Project, user: User) {
  return db
    .selectFrom('memberships')
    .selectAll()
    .where('project_id', '=', project.id)
    .where('user_id', '=', user.id)
    .executeTakeFirst();
}

const STATUS_ACTION = {
  pending: 'membership.request',
  approved: 'membership.approve',
  revoked: 'membership.revoke',
} as const satisfies Record<MembershipStatus, AuditAction>;

async function setStatus(
  db: Db,
  change: { project: Project; user: User; status: MembershipStatus; admin?: boolean; actor?: Actor },
) {
  const { project, user, status, admin } = change;
  await inTransaction(db, async (trx) => {
    await trx
      .updateTable('memberships')
      .set({ status, decided_at: nowIso(), ...(admin === undefined ? {} : { is_admin: admin ? 1 : 0 }) })
      .where('project_id', '=', project.id)
      .where('user_id', '=', user.id)
      .execute();
    await recordAudit(trx, change.actor, {
      projectId: project.id,
      action: STATUS_ACTION[status],
      subject: user.email,
      detail: status === 'approved' && admin ? 'as project admin' : '',
    });
  });
}

/** A user asks to join a project: pending until an admin approves. Idempotent while pending. */
export async function requestMembership(
  db: Db,
  input: { slug: string; email: string; actor?: Actor },
): Promise<Membership> {
  const [project, user] = [await findProject(db, input.slug), await findUser(db, input.email)];
  const existing = await membershipRow(db, project, user);
  if (existing?.status === 'approved')
    throw new AccessAdminError(
      'already_member',
      `${user.email} is already an approved member of '${project.slug}'.`,
    );
  if (!existing)
    await inTransaction(db, async (trx) => {
      await trx
        .insertInto('memberships')
        .values({
          project_id: project.id,
          user_id: user.id,
          status: 'pending',
          is_admin: 0,
          requested_at: nowIso(),
        })
        .execute();
      const entry = { projectId: project.id, subject: user.email, detail: '' } as const;
      await recordAudit(trx, input.actor, { ...entry, action: 'membership.request' });
    });
  else if (existing.status === 'revoked')
    await setStatus(db, { project, user, status: 'pending', ...actorOf(input) });
  return {
    projectSlug: project.slug,
    email: user.email,
    status: 'pending',
    isAdmin: existing?.is_admin === 1,
  };
}

/**
 * A user's own request to join, as the dashboard takes it: whoever asks must not learn from the
 * answer whether the project exists, so for an unknown name it records nothing and returns
 * undefined, and the caller answers as for a known one. gatewayctl (the operator, who sees every
 * project anyway) calls requestMembership and is told about a wrong name.
 */
export async function requestToJoin(
  db: Db,
  input: { slug: string; email: string; actor?: Actor },
): Promise<Membership | undefined> {
  const known = await db
    .selectFrom('projects')
    .select('id')
    .where('slug', '=', input.slug.trim())
    .executeTakeFirst();
  return known ? requestMembership(db, input) : undefined;
}

/** Approves a request (or re-approves a revoked member); `admin` makes them a project admin. */
export async function approveMembership(
  db: Db,
  input: { slug: string; email: string; admin?: boolean; actor?: Actor },
): Promise<Membership> {
  const [project, user] = [await findProject(db, input.slug), await findUser(db, input.email)];
  const existing = await membershipRow(db, project, user);
  if (!existing)
    throw new AccessAdminError(
      'no_membership_request',
      `${user.email} has not requested membership of '${project.slug}'.`,
      `Run: npx gatewayctl members request ${project.slug} ${user.email}`,
    );
  await setStatus(db, {
    project,
    user,
    status: 'approved',
    ...(input.admin === undefined ? {} : { admin: input.admin }),
    ...actorOf(input),
  });
  const isAdmin = input.admin ?? existing.is_admin === 1;
  return { projectSlug: project.slug, email: user.email, status: 'approved', isAdmin };
}

/** Revokes a membership; the member's tokens stop working within the revocation cache time. */
export async function revokeMembership(
  db: Db,
  input: { slug: string; email: string; actor?: Actor },
): Promise<Membership> {
  const [project, user] = [await findProject(db, input.slug), await findUser(db, input.email)];
  const existing = await membershipRow(db, project, user);
  if (!existing)
    throw new AccessAdminError('not_member', `${user.email} is not a member of '${project.slug}'.`);
  await setStatus(db, { project, user, status: 'revoked', ...actorOf(input) });
  return {
    projectSlug: project.slug,
    email: user.email,
    status: 'revoked',
    isAdmin: existing.is_admin === 1,
  };
}

/** `{ actor }` when given, for spreading into an object without an `undefined` property. */
function actorOf(input: { actor?: Actor }): { actor?: Actor } {
  return input.actor ? { actor: input.actor } : {};
}

/** An amount as text: digits, maybe decimals, maybe an exponent (1e6). */
const AMOUNT = /^\d+(\.\d+)?(e[+-]?\d+)?$/i;

/**
 * US dollars to micro-dollars, within the limit. An amount as typed (a form field) is read here
 * too, so that a refusal quotes what was typed, never `NaN`.
 */
export function usdToMicros(usd: number | string): number {
  const typed = String(usd).trim();
  const value = typeof usd === 'number' ? usd : AMOUNT.test(typed) ? Number(typed) : Number.NaN;
  if (!Number.isFinite(value) || value < 0 || value > MAX_USD)
    throw new AccessAdminError(
      'invalid_amount',
      `'${typed}' is not an amount in US dollars between 0 and ${MAX_USD}.`,
    );
  return Math.round(value * 1_000_000);
}

/** Sets (not adds to) the allocation of one provider bucket; what was spent stays spent. */
export async function setAllocation(
  db: Db,
  input: { slug: string; provider: string; usd: number | string; actor?: Actor },
): Promise<{ provider: ProviderId; allocatedMicros: number }> {
  const project = await findProject(db, input.slug);
  const provider = input.provider;
  if (!isProviderId(provider))
    throw new AccessAdminError(
      'invalid_provider',
      `Unknown provider '${provider}'. Providers: ${PROVIDERS.join(', ')}.`,
    );
  const allocatedMicros = usdToMicros(input.usd);
  const updatedAt = nowIso();
  await inTransaction(db, async (trx) => {
    const before = await trx
      .selectFrom('allocations')
      .select('allocated_micros')
      .where('project_id', '=', project.id)
      .where('provider', '=', provider)
      .executeTakeFirst();
    await trx
      .insertInto('allocations')
      .values({ project_id: project.id, provider, allocated_micros: allocatedMicros, updated_at: updatedAt })
      .onConflict((oc) =>
        oc
          .columns(['project_id', 'provider'])
          // A new alert epoch: the thresholds of budget alerts may fire again for this allocation.
          .doUpdateSet({
            allocated_micros: allocatedMicros,
            updated_at: updatedAt,
            alert_epoch: sql<number>`allocations.alert_epoch + 1`,
          }),
      )
      .execute();
    const was = before ? formatUsd(Number(before.allocated_micros)) : 'none';
    await recordAudit(trx, input.actor, {
      projectId: project.id,
      action: 'allocation.set',
      subject: provider,
      detail: `${was} -> ${formatUsd(allocatedMicros)}`,
    });
  });
  return { provider, allocatedMicros };
}
