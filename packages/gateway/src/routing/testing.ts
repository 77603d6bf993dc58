/** Test helpers of the routing area: the bundled catalog, a fake ledger and principals. */
import assert from 'node:assert/strict';
import type { Redis } from '@app/db';
import type { FastifyBaseLogger } from 'fastify';
import { credentialEnv, generateCredentials } from '@app/upstream-simulator';
import type { BucketBalance, Ledger, Principal, ProviderId } from '../contracts.ts';
import { SecretRedactor } from '../upstream/credentials/index.ts';
import { buildCatalog, type Catalog, CatalogError } from './catalog.ts';
import pino from 'pino';
import { loadGatewayConfig } from '../config.ts';
import type { AccessControl } from '../contracts.ts';
import { createRouting, DEFAULT_CATALOG_PATH, DEFAULT_UPSTREAMS_PATH, readJsonFile } from './index.ts';
import { buildUpstreams, type Upstreams, type UpstreamsOptions } from './upstreams.ts';

export const SIMULATOR_URL = 'http://127.0.0.1:9';

/** Credentials in the variables the bundled upstreams file names, for apps without a live simulator. */
export const SIMULATED_ENV: Readonly<Record<string, string>> = credentialEnv(
  generateCredentials(),
  `${SIMULATOR_URL}/google/token`,
);

/** The bundled catalog; `now` judges retirement (default: the real clock). */
export function bundledCatalog(now?: () => number): Catalog {
  return buildCatalog(readJsonFile(DEFAULT_CATALOG_PATH), 'catalog', now ? { now } : {});
}

/** The bundled upstreams file, on a simulator URL (null: no simulator in this process). */
export function bundledUpstreams(catalog: Catalog, simulatorUrl: string | null = SIMULATOR_URL): Upstreams {
  return buildUpstreams(readJsonFile(DEFAULT_UPSTREAMS_PATH), {
    catalog,
    simulatorUrl: simulatorUrl ?? undefined,
    env: SIMULATED_ENV,
  }).upstreams;
}

/** Endpoint entries on local addresses, one per adapter the catalog's vendors need. */
export const TEST_ENDPOINTS = {
  openai: { adapter: 'openai', baseUrl: 'http://127.0.0.1:11434/v1' },
  anthropic: { adapter: 'anthropic', baseUrl: 'http://127.0.0.1:11435' },
  gemini: { adapter: 'gemini', baseUrl: 'http://127.0.0.1:11436/v1beta' },
  vertex: { project: 'acme-ai', location: 'global' },
} as const;

/** Every (model, provider) of the catalog on a fitting adapter, with `patch` over the providers. */
export function upstreamsFile(patch: Record<string, unknown> = {}) {
  const { openai, anthropic, gemini, vertex } = TEST_ENDPOINTS;
  return {
    providers: {
      developer: { vendors: { openai, anthropic, google: gemini } },
      cloud_a: { default: { adapter: 'bedrock-converse', region: 'eu-central-1' } },
      cloud_b: {
        vendors: {
          anthropic: { adapter: 'vertex-claude', ...vertex },
          google: { adapter: 'vertex-gemini', ...vertex, location: 'europe-west4' },
        },
      },
      cloud_c: { default: { adapter: 'azure-openai', baseUrl: 'https://acme.openai.azure.com/openai' } },
      ...patch,
    },
  };
}

/** An upstreams file built against the bundled catalog, on the stand-in simulator URL. */
export function buildTestUpstreams(input: unknown, options: Partial<UpstreamsOptions> = {}) {
  return buildUpstreams(input, {
    catalog: bundledCatalog(),
    simulatorUrl: SIMULATOR_URL,
    env: {},
    ...options,
  });
}

/** The problems start-up reports for an upstreams file it refuses (fails if it is accepted). */
export function upstreamsProblems(
  input: unknown,
  options: Partial<UpstreamsOptions> = {},
): readonly string[] {
  try {
    buildTestUpstreams(input, options);
  } catch (error) {
    assert.ok(error instanceof CatalogError);
    return error.problems;
  }
  assert.fail('the upstreams file was accepted');
}

/**
 * Routing as the gateway starts it, from its environment variables (`GATEWAY_UPSTREAMS_PATH`,
 * ...): rejects with the CatalogError start-up would stop on.
 */
export function startRouting(
  variables: Record<string, string>,
  env: Record<string, string> = {},
  options: { log?: FastifyBaseLogger; redis?: Redis } = {},
) {
  const access: AccessControl = {
    authenticate: async () => {
      throw new Error('not used');
    },
  };
  return createRouting({
    config: loadGatewayConfig(variables).routing,
    redis: options.redis,
    ledger: fakeLedger().ledger,
    access,
    simulatorUrl: SIMULATOR_URL,
    log: options.log ?? pino({ level: 'silent' }),
    env,
    secrets: new SecretRedactor(),
  });
}

export interface CatalogFileCopy {
  effortProfiles: Record<string, Record<string, unknown>>;
  families: Record<string, unknown>[];
  models: Record<string, unknown>[];
}

/** The problems a catalog file is refused with; fails the test when it is accepted. */
export function catalogProblems(input: unknown): readonly string[] {
  try {
    buildCatalog(input, 'test catalog');
  } catch (error) {
    assert.ok(error instanceof CatalogError);
    return error.problems;
  }
  assert.fail('the catalog was accepted');
}

/** A deep copy of the bundled catalog file, to break in validation tests. */
export function bundledCatalogFile(): CatalogFileCopy {
  return structuredClone(readJsonFile(DEFAULT_CATALOG_PATH)) as CatalogFileCopy;
}

export function principal(overrides: Partial<Principal> = {}): Principal {
  return {
    userId: 1,
    email: 'ada@example.com',
    projectId: 10,
    projectSlug: 'apollo',
    tokenId: 'jti-1',
    tokenExpiresAt: new Date('2099-01-01T00:00:00Z'),
    limits: { project: {}, token: {} },
    ...overrides,
  };
}

export function balance(remainingMicros: number): BucketBalance {
  return { allocatedMicros: remainingMicros, spentMicros: 0, reservedMicros: 0, remainingMicros };
}

/** A ledger whose balances the test sets per project (remaining micros by provider). */
export function fakeLedger(initial: Partial<Record<ProviderId, number>> = {}) {
  let remaining: Partial<Record<ProviderId, number>> = { ...initial };
  let calls = 0;
  const unused = async (): Promise<never> => {
    throw new Error('routing never reserves, settles or releases');
  };
  const ledger: Ledger = {
    reserve: unused,
    tryReserve: unused,
    settle: unused,
    release: unused,
    async balances() {
      calls += 1;
      return Object.fromEntries(
        Object.entries(remaining).map(([provider, micros]) => [provider, balance(micros as number)]),
      ) as Partial<Record<ProviderId, BucketBalance>>;
    },
  };
  return {
    ledger,
    set(next: Partial<Record<ProviderId, number>>) {
      remaining = { ...next };
    },
    calls: () => calls,
  };
}

/** A clock the test moves by hand. */
export function manualClock(start = Date.parse('2026-09-01T00:00:00Z')) {
  let now = start;
  return {
    now: () => now,
    advance(ms: number) {
      now += ms;
    },
  };
}
