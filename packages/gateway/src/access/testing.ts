/**
 * Test helpers for every area of the gateway: a ready account through the same service
 * functions gatewayctl uses. Usage in an HTTP test:
 *
 *   const config = loadGatewayConfig({}, { overrides: { dataDir } });
 *   const app = await buildApp(config, { database });
 *   const { token, principal } = await seedAccount(database, { email, projectSlug, allocations: { developer: 5 }, config });
 *
 * Pass the same `config` as the app when it overrides `dataDir` or `access.*` so the token is
 * signed with the key the app verifies with (default: the default config's `./data`).
 */
import type { Database } from '@app/db';
import { migrateToLatest } from '@app/db';
import { type GatewayConfig, loadGatewayConfig } from '../config.ts';
import type { Principal, ProviderId } from '../contracts.ts';
import { gatewayMigrations } from '../db/migrations.ts';
import type { GatewayDatabase } from '../db/schema.ts';
import {
  addProject,
  addUser,
  approveMembership,
  issueToken,
  requestMembership,
  setAllocation,
} from './admin.ts';
import { loadSigningKeys, signingKeyLocation } from './keys.ts';

export interface SeedOptions {
  readonly email: string;
  readonly projectSlug: string;
  /** US dollars per provider bucket; at least one is needed for a token. */
  readonly allocations: Partial<Record<ProviderId, number>>;
  /** Token lifetime, e.g. `30m`, `7d` (default: config's tokenTtl). */
  readonly ttl?: string;
  /** Project IP allowlist (CIDRs). */
  readonly ipAllow?: readonly string[];
  /** The config the app under test was built with (key location, token policy). */
  readonly config?: GatewayConfig;
  readonly description?: string;
}

export interface SeededAccount {
  readonly token: string;
  readonly principal: Principal;
}

/**
 * Creates user, project (unless it exists: several users may share a project), an approved
 * membership, the allocations, and issues a token. Runs the migrations first, so it also
 * works before `buildApp` has opened the database.
 */
export async function seedAccount(
  database: Database<GatewayDatabase>,
  options: SeedOptions,
): Promise<SeededAccount> {
  const config = options.config ?? loadGatewayConfig({});
  const db = database.db;
  await migrateToLatest(db, gatewayMigrations);
  await addUser(db, { email: options.email });
  const existing = await db
    .selectFrom('projects')
    .select('id')
    .where('slug', '=', options.projectSlug)
    .executeTakeFirst();
  if (!existing) await addProject(db, { slug: options.projectSlug, ipAllow: options.ipAllow ?? [] });
  await requestMembership(db, { slug: options.projectSlug, email: options.email });
  await approveMembership(db, { slug: options.projectSlug, email: options.email });
  for (const [provider, usd] of Object.entries(options.allocations))
    await setAllocation(db, { slug: options.projectSlug, provider, usd });
  const keys = await loadSigningKeys(signingKeyLocation(config.dataDir, config.access.signingKeyPath));
  const issued = await issueToken(
    db,
    keys,
    { defaultTtl: config.access.tokenTtl, maxTtl: config.access.tokenMaxTtl },
    {
      email: options.email,
      slug: options.projectSlug,
      ...(options.ttl ? { ttl: options.ttl } : {}),
      description: options.description ?? 'test token',
    },
  );
  return {
    token: issued.token,
    principal: {
      userId: issued.userId,
      email: options.email.trim().toLowerCase(),
      projectId: issued.projectId,
      projectSlug: options.projectSlug,
      tokenId: issued.jti,
      tokenExpiresAt: issued.expiresAt,
      limits: { project: {}, token: {} },
    },
  };
}
