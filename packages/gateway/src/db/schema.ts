/**
 * Kysely table types of the gateway. Portable across SQLite and PostgreSQL: timestamps are
 * ISO-8601 UTC text, booleans integers 0/1, money integer micro-dollars, ids autoincrement.
 */
import type { ColumnType, Generated } from 'kysely';

/** The `usage.meters` column as read: JSON text (SQLite) or the parsed object (PostgreSQL). */
export type StoredMeters = string | Readonly<Record<string, number>>;

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
  /** Held by the instances' budget leases (and open reservations of pre-lease gateways). */
  reserved_micros: Generated<number>;
  updated_at: string;
  /** Incremented each time the allocation is set: budget alerts fire once per threshold and epoch. */
  alert_epoch: Generated<number>;
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

/** The usage ledger and activity log: one row per upstream attempt that reserved budget. */
export interface UsageTable {
  id: Generated<number>;
  token_jti: string;
  user_id: number;
  project_id: number;
  provider: string;
  model: string | null;
  /** The whole prompt and the whole generation: the totals over the meters' kinds of token. */
  prompt_tokens: Generated<number>;
  completion_tokens: Generated<number>;
  /**
   * What was charged as named meters (0010), a JSON object `{"input": 812, "output": 96}`:
   * text on SQLite, jsonb on PostgreSQL (which the driver returns parsed; read it with
   * storedMeters). A new meter is a new key, never a column.
   */
  meters: ColumnType<StoredMeters, string | undefined, string>;
  reserved_micros: number;
  cost_micros: Generated<number>;
  status: UsageStatus;
  reason: string | null;
  created_at: string;
  settled_at: string | null;
  /** The coding agent's session id (routing/session.ts); null without one. */
  session_id: Generated<string | null>;
  /** The Fastify request id (the client's request-id header); null on rows before 0008. */
  request_id: Generated<string | null>;
  /** 1 for the request's first upstream attempt, 2 after a failover or retry, ... */
  attempt: Generated<number | null>;
  /** Effort and tier served (tier as the upstream reported it, else as asked). */
  effort: Generated<string | null>;
  tier: Generated<string | null>;
  /** 1 when the row starts its request (counted as a request by reports), 0 otherwise (0010). */
  new_request: Generated<number>;
  /** Milliseconds from sending the attempt to its end; time to the first streamed content. */
  latency_ms: Generated<number | null>;
  first_token_ms: Generated<number | null>;
  /** `ok`, `client_left`, `gateway_error` or the upstream failure's kind; its HTTP status. */
  outcome: Generated<string | null>;
  http_status: Generated<number | null>;
}

/** A user's identity at an OpenID Connect provider; (issuer, subject) is the match key. */
export interface UserIdentitiesTable {
  issuer: string;
  subject: string;
  user_id: number;
  /** The email the provider sent at the last sign-in. */
  email: string;
  created_at: string;
  last_sign_in_at: string;
}

/** A signed-in dashboard browser; the cookie holds the id, the table its SHA-256. */
export interface DashboardSessionsTable {
  id_hash: string;
  user_id: number;
  created_at: string;
  /** Last request (idle expiry counts from here); written at most once a minute. */
  seen_at: string;
  /** Absolute expiry. */
  expires_at: string;
  /** For signing out at the identity provider (id_token_hint). */
  id_token: string | null;
}

/** A sign-in in progress: what the callback must check (state, nonce, PKCE verifier). */
export interface DashboardLoginsTable {
  id_hash: string;
  state: string;
  nonce: string;
  code_verifier: string;
  return_to: string;
  created_at: string;
}

export type RateLimitScope = 'project' | 'token';

/** Limits of a project (scope `project`) or of each of its tokens (scope `token`); NULL: none. */
export interface RateLimitsTable {
  project_id: number;
  scope: RateLimitScope;
  requests_per_minute: number | null;
  tokens_per_minute: number | null;
  concurrent_requests: number | null;
  updated_at: string;
}

export type AuditAction =
  | 'user.create'
  | 'project.create'
  | 'project.ip_allow'
  | 'membership.request'
  | 'membership.approve'
  | 'membership.revoke'
  | 'allocation.set'
  | 'token.issue'
  | 'token.revoke'
  | 'limits.set'
  | 'admin_key.create'
  | 'admin_key.revoke'
  | 'alerts.set'
  | 'alerts.rotate_secret'
  | 'alerts.dismiss';

/** One account change: who (a user, an admin key, or the operator's gatewayctl), when, what. */
export interface AuditEventsTable {
  id: Generated<number>;
  /** The project changed; NULL for changes of no project (a user, an admin key). */
  project_id: number | null;
  /** The signed-in user who acted; NULL for the operator (gatewayctl) and admin keys. */
  actor_user_id: number | null;
  /** The admin key that acted through the admin API; NULL otherwise. */
  actor_admin_key_id: number | null;
  /** The actor as shown: the user's email at the time, `admin key <id> (<description>)`, or `gatewayctl`. */
  actor: string;
  action: AuditAction;
  /** Whom or what it concerns: a member's email, a token's description, a provider bucket. */
  subject: string;
  /** The change in words, e.g. `$5.00 -> $10.00`. */
  detail: string;
  created_at: string;
}

/** `returned` at graceful shutdown or when idle; `expired` when its instance stopped renewing it. */
export type LeaseClosure = 'returned' | 'expired';

/** Budget one gateway instance holds from a bucket (`allocations.reserved_micros` counts it). */
export interface BudgetLeasesTable {
  id: Generated<number>;
  instance_id: string;
  project_id: number;
  provider: string;
  /** Held now; at closure, what was still held (for `expired`: the most that went unrecorded). */
  amount_micros: number;
  /** Everything ever leased into it. */
  leased_micros: number;
  created_at: string;
  expires_at: string;
  closed_at: string | null;
  closed_as: LeaseClosure | null;
}

export type AdminScope = 'read' | 'write';

/** A credential of the admin API; the key itself is never stored, only its SHA-256. */
export interface AdminKeysTable {
  id: Generated<number>;
  /** Hex SHA-256 of the whole key (`gwadm_...`); unique. */
  key_hash: string;
  description: string;
  /** JSON array of AdminScope. */
  scopes: string;
  created_at: string;
  expires_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** A project's budget alert settings; without a row the default thresholds and no webhook. */
export interface AlertSettingsTable {
  project_id: number;
  /** JSON array of whole percentages of the allocation, ascending. */
  thresholds: string;
  webhook_url: string | null;
  /** HMAC-SHA256 key of the webhook signatures; kept in clear because the gateway signs with it. */
  webhook_secret: string | null;
  updated_at: string;
}

/** `none`: no webhook was set when the threshold was crossed. */
export type AlertDelivery = 'pending' | 'delivered' | 'failed' | 'none';

/** One threshold crossed by one bucket in one allocation epoch. */
export interface BudgetAlertsTable {
  id: Generated<number>;
  /** The payload's `id` and the idempotency key of every delivery attempt. */
  alert_key: string;
  project_id: number;
  provider: string;
  threshold: number;
  epoch: number;
  allocated_micros: number;
  spent_micros: number;
  crossed_at: string;
  delivery: AlertDelivery;
  attempts: Generated<number>;
  next_attempt_at: string | null;
  /** An instance sending this alert holds it until then. */
  lease_until: string | null;
  last_error: string | null;
  delivered_at: string | null;
  dismissed_at: string | null;
}

export interface GatewayDatabase {
  users: UsersTable;
  projects: ProjectsTable;
  memberships: MembershipsTable;
  allocations: AllocationsTable;
  access_tokens: AccessTokensTable;
  usage: UsageTable;
  user_identities: UserIdentitiesTable;
  dashboard_sessions: DashboardSessionsTable;
  dashboard_logins: DashboardLoginsTable;
  rate_limits: RateLimitsTable;
  audit_events: AuditEventsTable;
  budget_leases: BudgetLeasesTable;
  admin_keys: AdminKeysTable;
  alert_settings: AlertSettingsTable;
  budget_alerts: BudgetAlertsTable;
}
