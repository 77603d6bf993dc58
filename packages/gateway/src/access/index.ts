import type { Database, Redis } from '@app/db';
import type { FastifyBaseLogger, FastifyPluginAsync } from 'fastify';
import type { AccessControl, Ledger } from '../contracts.ts';
import type { GatewayDatabase } from '../db/schema.ts';
import { accountRoutes } from './account-route.ts';
import type { AccessConfig } from './config.ts';
import { createAccessControl } from './control.ts';
import { parseDuration } from './duration.ts';
import { loadSigningKeys, type SigningKeys, signingKeyLocation } from './keys.ts';
import { type BudgetLedger, createLedger } from '../ledger/ledger.ts';
import { publishRevocation, subscribeRevocations } from './revocation-bus.ts';
import type { TokenPolicy } from './admin-tokens.ts';
import { type AuthenticateAdmin, createAdminAuthentication } from './admin-auth.ts';

export interface AccessDeps {
  readonly config: AccessConfig;
  readonly dataDir: string;
  readonly database: Database<GatewayDatabase>;
  readonly redis: Redis | undefined;
  readonly log: FastifyBaseLogger;
}

export interface Access {
  readonly control: AccessControl;
  readonly ledger: Ledger;
  /** Every bucket's balance in one read (the bucket gauge of /metrics). */
  readonly bucketBalances: BudgetLedger['allBalances'];
  /** Routes of the access area (GET /v1/account, GET /v1/account/usage). */
  readonly routes: FastifyPluginAsync;
  /** The admin API's check of every request: IP allowlists, admin key, scope. */
  readonly authenticateAdmin: AuthenticateAdmin;
  /** What the dashboard needs to issue and revoke tokens through admin.ts, as gatewayctl does. */
  readonly tokens: {
    readonly keys: SigningKeys;
    readonly policy: TokenPolicy;
    /** After a revocation: this instance forgets cached state now, the others via Redis. */
    announceRevocation(what: string): Promise<void>;
  };
  close(): Promise<void>;
}

const SWEEP_EVERY_MS = 5 * 60_000;

/**
 * The access area: token and IP checks for every /v1 call, the budget ledger, GET /v1/account.
 * Revocation reaches every instance through the shared database within `revocationCacheMs`;
 * with Redis, announced revocations also clear the caches at once (docs/gateway/access.md).
 */
export async function createAccess(deps: AccessDeps): Promise<Access> {
  const { tokenTtl, tokenMaxTtl } = deps.config;
  if ((parseDuration(tokenTtl) ?? 0) > (parseDuration(tokenMaxTtl) ?? 0))
    throw new Error(`access.tokenTtl (${tokenTtl}) is longer than access.tokenMaxTtl (${tokenMaxTtl})`);
  const keys = await loadSigningKeys(signingKeyLocation(deps.dataDir, deps.config.signingKeyPath));
  const db = deps.database.db;
  const control = createAccessControl({ db, keys, config: deps.config, log: deps.log });
  const ledger = createLedger({
    db,
    log: deps.log,
    options: {
      chunkMicros: Math.round(deps.config.ledgerChunkUsd * 1_000_000),
      leaseTtlMs: deps.config.ledgerLeaseTtlMs,
      flushMs: deps.config.ledgerFlushMs,
      flushRows: deps.config.ledgerFlushRows,
    },
  });
  const staleAfterMs = parseDuration(deps.config.reservationTimeout) ?? 3_600_000;
  const sweep = () =>
    ledger.sweepStale(staleAfterMs).catch((error: unknown) => {
      deps.log.warn({ err: error }, 'stale reservation sweep failed');
      return 0;
    });
  await sweep();
  const timer = setInterval(sweep, Math.min(staleAfterMs, SWEEP_EVERY_MS));
  timer.unref();
  const revocations = deps.redis
    ? await subscribeRevocations(deps.redis, control.invalidate, deps.log)
    : undefined;
  return {
    control,
    ledger,
    bucketBalances: () => ledger.allBalances(),
    routes: accountRoutes({ control, ledger, db }),
    authenticateAdmin: createAdminAuthentication({ db, config: deps.config, log: deps.log }),
    tokens: {
      keys,
      policy: { defaultTtl: tokenTtl, maxTtl: tokenMaxTtl },
      announceRevocation: async (what) => {
        control.invalidate();
        if (!deps.redis) return;
        // The cache TTL (<= 1 s) still bounds revocation when the announcement is lost.
        await publishRevocation(deps.redis, what).catch((error: unknown) =>
          deps.log.warn({ err: error }, 'could not announce a revocation'),
        );
      },
    },
    close: async () => {
      clearInterval(timer);
      await ledger.close();
      revocations?.close();
      await control.close();
    },
  };
}
