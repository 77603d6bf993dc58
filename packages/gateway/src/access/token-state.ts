import type { Kysely } from 'kysely';
import type { PrincipalLimits } from '../contracts.ts';
import type { GatewayDatabase, MembershipStatus } from '../db/schema.ts';
import { limitsOfRow } from './admin-limits.ts';
import { type IpRange, parseRanges } from './ip.ts';

/** What the database says about a token now: revocation, membership, project allowlist. */
export interface TokenState {
  readonly userId: number;
  readonly email: string;
  readonly projectId: number;
  readonly projectSlug: string;
  readonly revoked: boolean;
  readonly membership: MembershipStatus | undefined;
  readonly projectRanges: readonly IpRange[];
  readonly limits: PrincipalLimits;
}

const MAX_ENTRIES = 10_000;

/**
 * A per-instance cache of token state with a short TTL. The database is the one source of
 * truth shared by every instance, so a revocation is seen everywhere once the entry ages out:
 * the TTL (at most 1 s) is the revocation latency, with no cross-instance messaging needed.
 * Concurrent misses for one token share a single query.
 */
export function createTokenStateCache(db: Kysely<GatewayDatabase>, ttlMs: number) {
  const entries = new Map<string, { state: TokenState | undefined; until: number }>();
  const inflight = new Map<string, Promise<TokenState | undefined>>();
  // Bumped by invalidate(): a query that started before it must not refill the cache.
  let generation = 0;

  async function load(jti: string): Promise<TokenState | undefined> {
    const row = await db
      .selectFrom('access_tokens as t')
      .innerJoin('users as u', 'u.id', 't.user_id')
      .innerJoin('projects as p', 'p.id', 't.project_id')
      .leftJoin('memberships as m', (join) =>
        join.onRef('m.project_id', '=', 't.project_id').onRef('m.user_id', '=', 't.user_id'),
      )
      .leftJoin('rate_limits as lp', (join) =>
        join.onRef('lp.project_id', '=', 't.project_id').on('lp.scope', '=', 'project'),
      )
      .leftJoin('rate_limits as lt', (join) =>
        join.onRef('lt.project_id', '=', 't.project_id').on('lt.scope', '=', 'token'),
      )
      .select(['t.user_id', 't.project_id', 't.revoked_at', 'u.email', 'p.slug', 'p.ip_allow', 'm.status'])
      .select([
        'lp.requests_per_minute as p_rpm',
        'lp.tokens_per_minute as p_tpm',
        'lp.concurrent_requests as p_conc',
        'lt.requests_per_minute as t_rpm',
        'lt.tokens_per_minute as t_tpm',
        'lt.concurrent_requests as t_conc',
      ])
      .where('t.jti', '=', jti)
      .executeTakeFirst();
    if (!row) return undefined;
    return {
      userId: row.user_id,
      email: row.email,
      projectId: row.project_id,
      projectSlug: row.slug,
      revoked: row.revoked_at !== null,
      membership: row.status ?? undefined,
      projectRanges: parseRanges(JSON.parse(row.ip_allow) as string[]).ranges,
      limits: {
        project: limitsOfRow({
          requests_per_minute: row.p_rpm,
          tokens_per_minute: row.p_tpm,
          concurrent_requests: row.p_conc,
        }),
        token: limitsOfRow({
          requests_per_minute: row.t_rpm,
          tokens_per_minute: row.t_tpm,
          concurrent_requests: row.t_conc,
        }),
      },
    };
  }

  async function tokenState(jti: string): Promise<TokenState | undefined> {
    const now = Date.now();
    const cached = entries.get(jti);
    if (cached && cached.until > now) return cached.state;
    const pending = inflight.get(jti);
    if (pending) return pending;
    // The entry ages from when the query started, so the answer is never older than the TTL.
    const started = generation;
    const loading = load(jti)
      .then((state) => {
        if (entries.size >= MAX_ENTRIES) entries.clear();
        if (ttlMs > 0 && started === generation) entries.set(jti, { state, until: now + ttlMs });
        return state;
      })
      .finally(() => {
        if (inflight.get(jti) === loading) inflight.delete(jti);
      });
    inflight.set(jti, loading);
    return loading;
  }

  return {
    get: tokenState,
    /** Forgets every cached answer (a revocation was announced). */
    invalidate: () => {
      generation++;
      entries.clear();
      inflight.clear();
    },
  };
}
