/**
 * The admin API's resources as JSON: snake_case fields as on /v1, amounts in US dollars, lists
 * in OpenAI's `{"object": "list", "data": [...]}`. One TypeBox declaration per resource gives the
 * response validation, the TypeScript type and the OpenAPI schema; the mappers turn the access
 * area's records into them.
 */
import { type Static, type TSchema, Type } from 'typebox';
import type { BucketUsage, TokenInfo } from '../access/admin-tokens.ts';
import type { AuditEvent } from '../access/audit.ts';
import { MetersSchema } from '../access/meters-schema.ts';
import type { MemberRow } from '../access/directory.ts';
import type { ProjectListing, UserListing } from '../access/listings.ts';
import type { PrincipalLimits, RateLimits } from '../contracts.ts';

const Time = Type.String({ format: 'date-time' });
const Usd = (description: string) => Type.Number({ description: `${description}, US dollars` });

export const ListOf = <T extends TSchema>(item: T) =>
  Type.Object({ object: Type.Literal('list'), data: Type.Array(item) });

export const UserSchema = Type.Object({
  object: Type.Literal('user'),
  id: Type.Integer(),
  email: Type.String(),
  is_admin: Type.Boolean({ description: 'A gateway admin (administers every project in the dashboard)' }),
  projects: Type.Integer({ description: 'Projects with an approved membership' }),
  created_at: Time,
});

export const ProjectSchema = Type.Object({
  object: Type.Literal('project'),
  id: Type.Integer(),
  slug: Type.String(),
  ip_allow: Type.Array(Type.String(), {
    description: "CIDRs the project's tokens are accepted from; [] = any",
  }),
  approved_members: Type.Integer(),
  pending_members: Type.Integer(),
  created_at: Time,
});

export const MembershipSchema = Type.Object({
  object: Type.Literal('membership'),
  project: Type.String(),
  email: Type.String(),
  status: Type.Union([Type.Literal('pending'), Type.Literal('approved'), Type.Literal('revoked')]),
  is_admin: Type.Boolean({ description: 'A project admin (approves members in the dashboard)' }),
  requested_at: Time,
});

export const AllocationSchema = Type.Object({
  object: Type.Literal('allocation'),
  project: Type.String(),
  provider: Type.String(),
  allocated: Usd('The allocation now'),
});

export const BucketSchema = Type.Object({
  object: Type.Literal('bucket'),
  provider: Type.String(),
  allocated: Usd('Allocation'),
  spent: Usd('Settled cost'),
  reserved: Usd('Held by requests in flight and the instances’ budget leases'),
  remaining: Usd('allocated - spent - reserved, never below 0'),
  requests: Type.Integer({
    description: 'Requests charged to the bucket; a failed-over request counts once',
  }),
  prompt_tokens: Type.Integer(),
  completion_tokens: Type.Integer(),
  meters: MetersSchema,
});

const Limit = (description: string) =>
  Type.Union([Type.Integer(), Type.Null()], { description: `${description}; null: no limit` });
export const LimitsSchema = Type.Object({
  requests_per_minute: Limit('Requests per minute'),
  tokens_per_minute: Limit('Tokens (input + output) per minute'),
  concurrent_requests: Limit('Requests at once'),
});

export const RateLimitsSchema = Type.Object({
  object: Type.Literal('rate_limits'),
  project: Type.String(),
  limits: Type.Object({
    project: LimitsSchema,
    token: Type.Object(LimitsSchema.properties, { description: 'Each token of the project' }),
  }),
});

export const TokenSchema = Type.Object({
  object: Type.Literal('token'),
  id: Type.String({ description: 'The token id (jti); never the token itself' }),
  email: Type.String(),
  project: Type.String(),
  description: Type.String(),
  state: Type.Union([Type.Literal('active'), Type.Literal('expired'), Type.Literal('revoked')]),
  created_at: Time,
  expires_at: Time,
  last_used_at: Type.Union([Time, Type.Null()]),
  revoked_at: Type.Union([Time, Type.Null()]),
});

export const IssuedTokenSchema = Type.Object({
  ...TokenSchema.properties,
  token: Type.String({ description: 'The personal access token: shown in this answer only, never stored' }),
});

export const AuditEventSchema = Type.Object({
  object: Type.Literal('audit_event'),
  id: Type.Integer(),
  project: Type.Union([Type.String(), Type.Null()], { description: 'null: a change of no project' }),
  actor: Type.String(),
  actor_kind: Type.Union([Type.Literal('user'), Type.Literal('admin_key'), Type.Literal('operator')]),
  actor_admin_key_id: Type.Union([Type.Integer(), Type.Null()]),
  action: Type.String(),
  subject: Type.String(),
  detail: Type.String(),
  created_at: Time,
});

export const AuditPageSchema = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(AuditEventSchema),
  older_before: Type.Union([Type.Integer(), Type.Null()], {
    description: 'Pass as `before` for the next (older) page; null on the last page',
  }),
});

const usd = (micros: number) => micros / 1_000_000;

export function userJson(user: UserListing): Static<typeof UserSchema> {
  const { id, email, isAdmin, projects, createdAt } = user;
  return { object: 'user', id, email, is_admin: isAdmin, projects, created_at: createdAt };
}

export function projectJson(project: ProjectListing): Static<typeof ProjectSchema> {
  return {
    object: 'project',
    id: project.id,
    slug: project.slug,
    ip_allow: [...project.ipAllow],
    approved_members: project.approvedMembers,
    pending_members: project.pendingMembers,
    created_at: project.createdAt,
  };
}

export function membershipJson(slug: string, member: MemberRow): Static<typeof MembershipSchema> {
  const { email, status, isAdmin, requestedAt } = member;
  return { object: 'membership', project: slug, email, status, is_admin: isAdmin, requested_at: requestedAt };
}

export function bucketJson(bucket: BucketUsage): Static<typeof BucketSchema> {
  const { allocatedMicros, spentMicros, reservedMicros } = bucket;
  return {
    object: 'bucket',
    provider: bucket.provider,
    allocated: usd(allocatedMicros),
    spent: usd(spentMicros),
    reserved: usd(reservedMicros),
    remaining: usd(Math.max(0, allocatedMicros - spentMicros - reservedMicros)),
    requests: bucket.requests,
    prompt_tokens: bucket.promptTokens,
    completion_tokens: bucket.completionTokens,
    meters: bucket.meters,
  };
}

function limitsJson(limits: RateLimits): Static<typeof LimitsSchema> {
  return {
    requests_per_minute: limits.requestsPerMinute ?? null,
    tokens_per_minute: limits.tokensPerMinute ?? null,
    concurrent_requests: limits.concurrentRequests ?? null,
  };
}

export function rateLimitsJson(slug: string, limits: PrincipalLimits): Static<typeof RateLimitsSchema> {
  return {
    object: 'rate_limits',
    project: slug,
    limits: { project: limitsJson(limits.project), token: limitsJson(limits.token) },
  };
}

export function tokenJson(token: TokenInfo): Static<typeof TokenSchema> {
  return {
    object: 'token',
    id: token.jti,
    email: token.email,
    project: token.projectSlug,
    description: token.description,
    state: token.state,
    created_at: token.createdAt,
    expires_at: token.expiresAt,
    last_used_at: token.lastUsedAt,
    revoked_at: token.revokedAt,
  };
}

export function auditEventJson(event: AuditEvent): Static<typeof AuditEventSchema> {
  const kind = event.actorIsUser ? 'user' : event.actorAdminKeyId === null ? 'operator' : 'admin_key';
  return {
    object: 'audit_event',
    id: event.id,
    project: event.project,
    actor: event.actor,
    actor_kind: kind,
    actor_admin_key_id: event.actorAdminKeyId,
    action: event.action,
    subject: event.subject,
    detail: event.detail,
    created_at: event.createdAt,
  };
}
