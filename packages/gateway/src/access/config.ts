import type { EnvMapping } from '@app/http-kit';
import { type Static, Type } from 'typebox';
import { honouredDuration, MAX_DURATION_DAYS, parseDuration } from './duration.ts';

const DURATION = '^[1-9][0-9]*(s|m|h|d)$';
/** Shown in configuration errors instead of the pattern. */
const DURATION_EXPECTED = 'a duration such as 30s, 30m, 12h or 7d';

const CidrList = (description: string) =>
  Type.Array(Type.String({ minLength: 1 }), {
    default: [],
    description: `${description} IPv4/IPv6 CIDRs or single addresses; entries may also be comma-separated.`,
  });

/** The budget ledger's leases and group commit (docs/gateway/access.md, "Allocations and the ledger"). */
const LedgerConfigFields = {
  ledgerChunkUsd: Type.Number({
    minimum: 0,
    maximum: 1_000_000,
    default: 1,
    description:
      'Budget an instance leases from a bucket at a time, US dollars (less near the end of a bucket; 0 leases only what waiting requests need).',
  }),
  ledgerLeaseTtlMs: Type.Integer({
    minimum: 100,
    maximum: 3_600_000,
    default: 30_000,
    description: 'A lease not renewed for this long (its instance died) returns to the bucket.',
  }),
  ledgerFlushMs: Type.Integer({
    minimum: 0,
    maximum: 1000,
    default: 20,
    description:
      'Usage-ledger rows are committed in one transaction at most this long after their request ends (the most a crash loses; shorter costs more CPU per request).',
  }),
  ledgerFlushRows: Type.Integer({
    minimum: 1,
    maximum: 10_000,
    default: 500,
    description: 'A group commit starts at once when this many rows wait.',
  }),
};

/** The admin API's credentials and network (docs/gateway/admin-api.md). */
const AdminApiConfigFields = {
  adminKeyTtl: Type.String({
    pattern: DURATION,
    expected: DURATION_EXPECTED,
    default: '30d',
    description: 'Default lifetime of a new admin key (gatewayctl admin-keys create).',
  }),
  adminKeyMaxTtl: Type.String({
    pattern: DURATION,
    expected: DURATION_EXPECTED,
    default: '365d',
    description: 'Longest lifetime an admin key may be created with.',
  }),
  adminIpAllow: CidrList(
    'IP allowlist of the admin API (/admin/v1), checked after the global one; empty: no further restriction.',
  ),
};

/** Configuration of the access area (section `access` of the gateway config). */
export const AccessConfigSchema = Type.Object(
  {
    tokenTtl: Type.String({
      pattern: DURATION,
      expected: DURATION_EXPECTED,
      default: '7d',
      description: 'Default lifetime of a new personal access token (e.g. 30m, 12h, 7d).',
    }),
    tokenMaxTtl: Type.String({
      pattern: DURATION,
      expected: DURATION_EXPECTED,
      default: '30d',
      description: 'Longest lifetime a token may be issued with.',
    }),
    signingKeyPath: Type.Optional(
      Type.String({
        minLength: 1,
        description:
          'JSON key set used to sign tokens (must exist). Unset: <dataDir>/signing-keys.json, generated on first start.',
      }),
    ),
    ipAllow: CidrList('Global IP allowlist; empty allows every address.'),
    trustedProxies: CidrList('Peers whose X-Forwarded-For is believed.'),
    demoSeed: Type.Boolean({
      default: true,
      description: 'On the embedded SQLite database with no users, create a demo account at start-up.',
    }),
    revocationCacheMs: Type.Integer({
      minimum: 0,
      maximum: 1000,
      default: 1000,
      description: 'How long a token/membership check is cached; bounds revocation latency.',
    }),
    lastUsedIntervalMs: Type.Integer({
      minimum: 0,
      default: 60_000,
      description: 'A token’s last_used_at is written at most this often.',
    }),
    reservationTimeout: Type.String({
      pattern: DURATION,
      expected: DURATION_EXPECTED,
      default: '1h',
      description:
        'Open `reserved` ledger rows of pre-lease gateways older than this are released by a sweep.',
    }),
    ...LedgerConfigFields,
    ...AdminApiConfigFields,
  },
  { additionalProperties: false, default: {} },
);

export type AccessConfig = Static<typeof AccessConfigSchema>;

/** Config path inside this section -> environment variable. */
export const ACCESS_ENV: EnvMapping = {
  tokenTtl: 'GATEWAY_TOKEN_TTL',
  tokenMaxTtl: 'GATEWAY_TOKEN_MAX_TTL',
  signingKeyPath: 'GATEWAY_SIGNING_KEY_PATH',
  ipAllow: 'GATEWAY_IP_ALLOW',
  trustedProxies: 'GATEWAY_TRUSTED_PROXIES',
  demoSeed: 'GATEWAY_DEMO_SEED',
  revocationCacheMs: 'GATEWAY_REVOCATION_CACHE_MS',
  lastUsedIntervalMs: 'GATEWAY_LAST_USED_INTERVAL_MS',
  reservationTimeout: 'GATEWAY_RESERVATION_TIMEOUT',
  ledgerChunkUsd: 'GATEWAY_LEDGER_CHUNK_USD',
  ledgerLeaseTtlMs: 'GATEWAY_LEDGER_LEASE_TTL_MS',
  ledgerFlushMs: 'GATEWAY_LEDGER_FLUSH_MS',
  ledgerFlushRows: 'GATEWAY_LEDGER_FLUSH_ROWS',
  adminKeyTtl: 'GATEWAY_ADMIN_KEY_TTL',
  adminKeyMaxTtl: 'GATEWAY_ADMIN_KEY_MAX_TTL',
  adminIpAllow: 'GATEWAY_ADMIN_IP_ALLOW',
};

/** Mistakes in the section that the schema cannot express; empty when it is coherent. */
export function accessConfigProblems(access: AccessConfig): string[] {
  const problems = (
    [
      ['GATEWAY_ADMIN_KEY_TTL', access.adminKeyTtl],
      ['GATEWAY_ADMIN_KEY_MAX_TTL', access.adminKeyMaxTtl],
    ] as const
  )
    .filter(([, value]) => !honouredDuration(value))
    .map(
      ([name, value]) => `${name}=${value} is longer than a key can last (at most ${MAX_DURATION_DAYS}d).`,
    );
  if (
    problems.length === 0 &&
    (parseDuration(access.adminKeyTtl) ?? 0) > (parseDuration(access.adminKeyMaxTtl) ?? 0)
  )
    problems.push(
      `GATEWAY_ADMIN_KEY_TTL=${access.adminKeyTtl} is longer than GATEWAY_ADMIN_KEY_MAX_TTL=${access.adminKeyMaxTtl}.`,
    );
  return problems;
}
