/**
 * The upstreams file: where each provider (optionally per model family) is reached. Validated
 * and resolved once at start-up: secret locations are read, `simulator` is substituted, and
 * every (model, provider) pair of the catalog is checked to have an endpoint.
 */
import { readFileSync } from 'node:fs';
import { PROVIDERS, type ProviderId, type UpstreamTarget } from '../contracts.ts';
import type { Catalog } from './catalog.ts';
import { CatalogError } from './catalog.ts';
import {
  type AdapterKey,
  AUTH_SCHEMAS,
  type AuthEntry,
  ENDPOINT_SCHEMAS,
  type EndpointEntry,
  type UpstreamsFile,
  UpstreamsFileSchema,
} from './catalog-schema.ts';
import { schemaProblems, taggedProblems } from './schema-errors.ts';

const DEFAULT_TIMEOUT_MS = 120_000;
/** OpenAI advises ~15 minutes for flex requests, which queue for capacity. */
const DEFAULT_FLEX_TIMEOUT_MS = 900_000;

export interface Endpoint {
  /** `cloud_b` or `cloud_b/claude-sonnet`: the circuit breaker keeps one state per key. */
  readonly key: string;
  readonly provider: ProviderId;
  readonly adapter: AdapterKey;
  readonly baseUrl: string;
  readonly auth: UpstreamTarget['auth'];
  readonly timeoutMs: number;
  readonly flexTimeoutMs: number;
  /** Served by the bundled simulator: labelled so in /v1/models. */
  readonly simulated: boolean;
}

export interface Upstreams {
  /** The endpoint of `provider` for `family`, or undefined when it cannot be used in this process. */
  endpoint(provider: ProviderId, family: string): Endpoint | undefined;
}

export interface UpstreamsOptions {
  readonly catalog: Catalog;
  readonly simulatorUrl: string | undefined;
  /** Environment for `env:` locations (passed in: only main.ts reads process.env). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly source?: string;
}

/** Reads a secret from its location; the error names the location, never a value. */
function readSecret(location: string, env: UpstreamsOptions['env']): string {
  if (location.startsWith('env:')) {
    const name = location.slice(4);
    const value = env[name];
    if (!value) throw new Error(`environment variable ${name} is not set`);
    return value;
  }
  const path = location.slice(5);
  try {
    const value = readFileSync(path, 'utf8').trim();
    if (value === '') throw new Error('empty');
    return value;
  } catch {
    throw new Error(`secret file ${path} cannot be read or is empty`);
  }
}

function resolveAuth(auth: AuthEntry | undefined, env: UpstreamsOptions['env']): UpstreamTarget['auth'] {
  if (auth === undefined || auth.type === 'none') return { type: 'none' };
  if (auth.type === 'bearer') return { type: 'bearer', token: readSecret(auth.token, env) };
  return { type: 'header', name: auth.name, value: readSecret(auth.value, env) };
}

function endpointProblems(value: unknown, path: string): string[] {
  const problems = taggedProblems(ENDPOINT_SCHEMAS, 'adapter', value, path);
  if (problems.length > 0) return problems;
  const auth = (value as { auth?: unknown }).auth;
  return auth === undefined ? [] : taggedProblems(AUTH_SCHEMAS, 'type', auth, `${path}.auth`);
}

interface Declared {
  readonly path: string;
  readonly entry: EndpointEntry;
}

interface Scan {
  /** Valid endpoint entries by key (`provider` or `provider/family`). */
  readonly found: Map<string, Declared>;
  /** Every key present in the file, valid or not (coverage is not reported twice). */
  readonly present: Set<string>;
  readonly problems: string[];
}

function declaredEndpoints(file: UpstreamsFile, catalog: Catalog): Scan {
  const families = new Set(catalog.models.map((model) => model.family));
  const scan: Scan = { found: new Map(), present: new Set(), problems: [] };
  for (const provider of PROVIDERS) {
    const section = file.providers[provider];
    if (!section) continue;
    const entries: [string, string, unknown][] = [];
    if (section.default !== undefined)
      entries.push([provider, `providers.${provider}.default`, section.default]);
    for (const [family, value] of Object.entries(section.families ?? {})) {
      if (!families.has(family))
        scan.problems.push(`providers.${provider}.families.${family}: unknown model family`);
      entries.push([`${provider}/${family}`, `providers.${provider}.families.${family}`, value]);
    }
    for (const [key, path, value] of entries) {
      scan.present.add(key);
      const own = endpointProblems(value, path);
      scan.problems.push(...own);
      if (own.length === 0) scan.found.set(key, { path, entry: value as EndpointEntry });
    }
  }
  return scan;
}

/** One problem per (provider, family) of the catalog that the file gives no endpoint. */
function coverageProblems(catalog: Catalog, present: ReadonlySet<string>): string[] {
  const problems = new Map<string, string>();
  for (const model of catalog.models) {
    for (const provider of model.offers.keys()) {
      const key = `${provider}/${model.family}`;
      if (present.has(key) || present.has(provider) || problems.has(key)) continue;
      problems.set(
        key,
        `providers.${provider}: serves family '${model.family}' (e.g. ${model.id}) in the catalog but has no endpoint (set providers.${provider}.default or providers.${provider}.families.${model.family})`,
      );
    }
  }
  return [...problems.values()];
}

/**
 * Validates and resolves an upstreams file against the catalog. Returns the lookup plus
 * warnings (endpoints on the simulator while none runs in this process are left unusable).
 */
export function buildUpstreams(
  input: unknown,
  options: UpstreamsOptions,
): { upstreams: Upstreams; warnings: string[] } {
  const source = options.source ?? 'upstreams file';
  const shape = schemaProblems(UpstreamsFileSchema, input);
  if (shape.length > 0) throw new CatalogError(source, shape);
  const { found, present, problems } = declaredEndpoints(input as UpstreamsFile, options.catalog);
  problems.push(...coverageProblems(options.catalog, present));
  const resolved = new Map<string, Endpoint>();
  const warnings: string[] = [];
  for (const [key, { path, entry }] of found) {
    const simulated = entry.baseUrl === 'simulator';
    if (simulated && options.simulatorUrl === undefined) {
      warnings.push(
        `${path}: baseUrl is 'simulator' but no simulator runs in this process; provider unusable`,
      );
      continue;
    }
    try {
      resolved.set(key, {
        key,
        provider: key.split('/')[0] as ProviderId,
        adapter: entry.adapter,
        baseUrl: simulated ? (options.simulatorUrl as string) : entry.baseUrl,
        auth: resolveAuth(entry.auth as AuthEntry | undefined, options.env),
        timeoutMs: entry.timeoutMs ?? DEFAULT_TIMEOUT_MS,
        flexTimeoutMs: entry.flexTimeoutMs ?? DEFAULT_FLEX_TIMEOUT_MS,
        simulated,
      });
    } catch (error) {
      problems.push(`${path}.auth: ${(error as Error).message}`);
    }
  }
  if (problems.length > 0) throw new CatalogError(source, problems);
  return {
    upstreams: {
      // A declared family endpoint never falls back to the provider default, even when unusable.
      endpoint: (provider, family) => {
        const familyKey = `${provider}/${family}`;
        return found.has(familyKey) ? resolved.get(familyKey) : resolved.get(provider);
      },
    },
    warnings,
  };
}
