/**
 * Kysely table types of the gateway. Portable across SQLite and PostgreSQL: timestamps are
 * ISO-8601 UTC text, booleans integers 0/1, money integer micro-dollars, ids autoincrement.
 */
import type { Generated } from 'kysely';

export interface UsersTable {
  id: Generated<number>;
  /** Lower-cased; unique. */
  email: string;
  /** 1: gateway operator (may administer every project). */
  is_admin: number;
  created_at: string;
}

export interface ProjectsTable {
  id: Generated<number>;
  slug: string;
  /** JSON array of CIDR strings; `[]` = no project-level restriction. */
  ip_allow: string;
  created_at: string;
}

export type MembershipStatus = 'pending' | 'approved' | 'revoked';

export interface MembershipsTable {
  project_id: number;
  user_id: number;
  status: MembershipStatus;
  /** 1: project admin (approves members, sets allocations). */
  is_admin: number;
  requested_at: string;
  decided_at: string | null;
}

export interface AllocationsTable {
  project_id: number;
  /** One of PROVIDERS: the bucket charged when that provider serves a request. */
  provider: string;
  allocated_micros: number;
  spent_micros: Generated<number>;
  /** Sum of open reservations (requests in flight). */
  reserved_micros: Generated<number>;
  updated_at: string;
}

export interface AccessTokensTable {
  /** The token's `jti`; the token itself is never stored. */
  jti: string;
  user_id: number;
  project_id: number;
  description: string;
  created_at: string;
  expires_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** `reserved` while the request runs; then its outcome (a release is `error` with cost 0). */
export type UsageStatus = 'reserved' | 'ok' | 'error' | 'aborted';

/** The usage ledger: one row per request that reserved budget. */
export interface UsageTable {
  id: Generated<number>;
  token_jti: string;
  user_id: number;
  project_id: number;
  provider: string;
  model: string | null;
  prompt_tokens: Generated<number>;
  completion_tokens: Generated<number>;
  cached_tokens: Generated<number>;
  reserved_micros: number;
  cost_micros: Generated<number>;
  status: UsageStatus;
  reason: string | null;
  created_at: string;
  settled_at: string | null;
}

export interface GatewayDatabase {
  users: UsersTable;
  projects: ProjectsTable;
  memberships: MembershipsTable;
  allocations: AllocationsTable;
  access_tokens: AccessTokensTable;
  usage: UsageTable;
}
