/**
 * The upstreams file: where each provider (per vendor or model family) is reached, by which
 * adapter, with which credentials. Validated and resolved once at start-up: endpoint
 * parameters get their defaults, credentials become signers (a missing or unreadable one is
 * named), `simulator` is substituted, and every (model, provider) pair of the catalog is
 * checked to have an endpoint whose adapter can express the offer's efforts and tools. Settings
 * that upstream would refuse only on the first request (a base URL without its API's version
 * segment, a SigV4 region other than the endpoint's, a deployment mapped for a model the
 * endpoint does not serve) are refused here, naming the setting.
 */
import { type AdapterId, adapterFor, type EndpointParams } from '@app/provider-adapters';
import { PROVIDERS, type ProviderId } from '../contracts.ts';
import {
  AUTH_SCHEMAS,
  type AuthEntry,
  createSigner,
  type SecretRedactor,
  type Signer,
} from '../upstream/credentials/index.ts';
import type { Catalog, CatalogModel } from './catalog.ts';
import { CatalogError } from './catalog.ts';
import {
  ENDPOINT_SCHEMAS,
  type EndpointEntry,
  type UpstreamsFile,
  UpstreamsFileSchema,
} from './catalog-schema.ts';
import { type Management, managementOf, resolveDeployments } from './deployments.ts';
import { settingProblems } from './endpoint-checks.ts';
import { schemaProblems, taggedProblems } from './schema-errors.ts';
import { unpricedMeters } from './prices.ts';
import { adapterProblems, endpointParams } from './upstream-defaults.ts';

const DEFAULT_TIMEOUT_MS = 120_000;
/** OpenAI advises ~15 minutes for flex requests, which queue for capacity. */
const DEFAULT_FLEX_TIMEOUT_MS = 900_000;

export interface Endpoint {
  /** `cloud_b`, `cloud_b/anthropic` or `cloud_b/claude-sonnet`: the circuit breaker keeps one state per key. */
  readonly key: string;
  /** Where it is declared: `providers.cloud_b.vendors.anthropic`. */
  readonly path: string;
  readonly provider: ProviderId;
  readonly adapter: AdapterId;
  readonly params: EndpointParams;
  readonly signer: Signer;
  readonly timeoutMs: number;
  readonly flexTimeoutMs: number;
  /** Served by the bundled simulator: labelled so in /v1/models. */
  readonly simulated: boolean;
  /** Where the endpoint's deployments are listed (`catalog-check --credentials` only). */
  readonly management?: Management;
}

export interface Upstreams {
  /** The endpoint of `provider` for a model, or undefined when it cannot be used in this process. */
  endpoint(provider: ProviderId, family: string, vendor?: string): Endpoint | undefined;
  /** Every usable endpoint. */
  all(): readonly Endpoint[];
  /** Signers hold clients and timers: closed with the app. */
  close(): Promise<void>;
}

export interface UpstreamsOptions {
  readonly catalog: Catalog;
  /** Origin of the in-process simulator (`http://127.0.0.1:port`), if one runs. */
  readonly simulatorUrl: string | undefined;
  /** Environment for `env:` locations (passed in: only main.ts reads process.env). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly source?: string;
  /**
   * False: validate everything but read no secret (every signer is `none`), for checking a file
   * where the production secrets are not. Default true.
   */
  readonly readSecrets?: boolean;
  /** Learns each endpoint's secrets and tokens, to clear upstream text of them (the gateway's). */
  readonly secrets?: SecretRedactor;
}

function endpointProblems(value: unknown, path: string): string[] {
  const problems = taggedProblems(ENDPOINT_SCHEMAS, 'adapter', value, path);
  if (problems.length > 0) return problems;
  const auth = (value as { auth?: unknown }).auth;
  const authProblems = auth === undefined ? [] : taggedProblems(AUTH_SCHEMAS, 'type', auth, `${path}.auth`);
  return authProblems.length > 0 ? authProblems : settingProblems(value as EndpointEntry, path);
}

interface Declared {
  readonly path: string;
  readonly entry: EndpointEntry;
}

interface Scan {
  /** Valid endpoint entries by key (`provider`, `provider/vendor` or `provider/family`). */
  readonly found: Map<string, Declared>;
  /** Every key present in the file, valid or not (coverage is not reported twice). */
  readonly present: Set<string>;
  readonly problems: string[];
}

function sectionEntries(file: UpstreamsFile, provider: ProviderId, catalog: Catalog, scan: Scan) {
  const section = file.providers[provider];
  const entries: [string, string, unknown][] = [];
  if (!section) return entries;
  if (section.default !== undefined)
    entries.push([provider, `providers.${provider}.default`, section.default]);
  const vendors = new Set(catalog.models.map((model) => model.vendor));
  const families = new Set(catalog.models.map((model) => model.family));
  for (const [kind, label, known, map] of [
    ['vendors', 'vendor', vendors, section.vendors],
    ['families', 'family', families, section.families],
  ] as const) {
    for (const [name, value] of Object.entries(map ?? {})) {
      if (!known.has(name)) scan.problems.push(`providers.${provider}.${kind}.${name}: unknown ${label}`);
      entries.push([`${provider}/${name}`, `providers.${provider}.${kind}.${name}`, value]);
    }
  }
  return entries;
}

function declaredEndpoints(file: UpstreamsFile, catalog: Catalog): Scan {
  const scan: Scan = { found: new Map(), present: new Set(), problems: [] };
  for (const provider of PROVIDERS) {
    for (const [key, path, value] of sectionEntries(file, provider, catalog, scan)) {
      scan.present.add(key);
      const own = endpointProblems(value, path);
      scan.problems.push(...own);
      if (own.length === 0) scan.found.set(key, { path, entry: value as EndpointEntry });
    }
  }
  return scan;
}

/** The most specific key declared for a model on a provider: family, then vendor, then default. */
function keyFor(
  keys: ReadonlySet<string>,
  provider: ProviderId,
  model: Pick<CatalogModel, 'family' | 'vendor'>,
) {
  return [`${provider}/${model.family}`, `${provider}/${model.vendor}`, provider].find((key) =>
    keys.has(key),
  );
}

/** Coverage, and whether each offer fits the adapter that would serve it. */
function catalogProblems(catalog: Catalog, scan: Scan): string[] {
  const problems = new Map<string, string>();
  for (const model of catalog.models) {
    for (const [provider, offer] of model.offers) {
      const key = keyFor(scan.present, provider, model);
      if (key === undefined) {
        problems.set(
          `${provider}/${model.family}`,
          `providers.${provider}: serves family '${model.family}' (e.g. ${model.id}) in the catalog but has no endpoint (set providers.${provider}.default, .vendors.${model.vendor} or .families.${model.family})`,
        );
        continue;
      }
      const declared = scan.found.get(key);
      if (!declared) continue;
      for (const problem of adapterProblems(declared.entry.adapter, offer.profile))
        problems.set(`${model.id}@${provider}:${problem}`, `${declared.path}: ${model.id} ${problem}`);
      if (model.kind === 'embedding' && !adapterFor(declared.entry.adapter).embeddings)
        problems.set(
          `${model.id}@${provider}:embeddings`,
          `${declared.path}: ${model.id} is an embedding model, which adapter '${declared.entry.adapter}' cannot serve`,
        );
      const unpriced = unpricedMeters(declared.entry.adapter, offer.prices, model.kind);
      if (unpriced.length > 0)
        problems.set(
          `${model.id}@${provider}:meters`,
          `${declared.path}: ${model.id} has no price for meters that adapter '${declared.entry.adapter}' reports (${unpriced.join(', ')}); give each a rate in its prices on ${provider} (0 if free)`,
        );
    }
  }
  return [...problems.values()];
}

/** Each endpoint's `deployments`, checked against the models it serves, keyed by upstream model. */
function deploymentsOf(catalog: Catalog, scan: Scan) {
  const problems: string[] = [];
  const byKey = new Map<string, Record<string, string>>();
  for (const [key, declared] of scan.found) {
    const provider = key.split('/')[0] as ProviderId;
    const served = (model: CatalogModel) => {
      const offer = model.offers.get(provider);
      return offer && keyFor(scan.present, provider, model) === key ? offer : undefined;
    };
    const resolved = resolveDeployments(declared.entry, declared.path, catalog, served);
    problems.push(...resolved.problems);
    if (Object.keys(resolved.byUpstreamModel).length > 0) byKey.set(key, resolved.byUpstreamModel);
  }
  return { problems, byKey };
}

/** `baseUrl: "simulator[/path]"`: the bundled simulator, whose origin is known only at start-up. */
function onSimulator(entry: EndpointEntry): boolean {
  return (entry.baseUrl ?? '').startsWith('simulator');
}

function resolve(
  key: string,
  declared: Declared,
  options: UpstreamsOptions,
  deployments: Record<string, string> | undefined,
): Endpoint {
  const { entry } = declared;
  const simulated = onSimulator(entry);
  const substitute = (url: string) =>
    url.startsWith('simulator') ? `${options.simulatorUrl ?? ''}${url.slice('simulator'.length)}` : url;
  const declaredAuth = (options.readSecrets === false ? undefined : entry.auth) ?? { type: 'none' };
  const auth = withSimulator(declaredAuth as AuthEntry, substitute);
  const management = managementOf(entry, substitute);
  // Where the endpoint is, for signers that need it (SigV4's region, Google's project).
  const where = {
    ...('region' in entry ? { region: entry.region } : {}),
    ...('project' in entry ? { project: entry.project } : {}),
  };
  return {
    key,
    path: declared.path,
    provider: key.split('/')[0] as ProviderId,
    adapter: entry.adapter,
    params: { ...endpointParams(entry, substitute), ...(deployments ? { deployments } : {}) },
    signer: createSigner(auth, {
      env: options.env,
      ...where,
      ...(options.secrets ? { secrets: options.secrets } : {}),
    }),
    timeoutMs: entry.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    flexTimeoutMs: entry.flexTimeoutMs ?? DEFAULT_FLEX_TIMEOUT_MS,
    simulated,
    ...(management
      ? { management: { ...management, auth: withSimulator(management.auth, substitute) } }
      : {}),
  };
}

/** Token endpoints of the bundled simulator are named `simulator/...` too. */
function withSimulator(auth: AuthEntry, substitute: (url: string) => string): AuthEntry {
  const entry = auth as AuthEntry & { tokenUrl?: string; authorityHost?: string };
  return {
    ...entry,
    ...(entry.tokenUrl ? { tokenUrl: substitute(entry.tokenUrl) } : {}),
    ...(entry.authorityHost ? { authorityHost: substitute(entry.authorityHost) } : {}),
  } as AuthEntry;
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
  const scan = declaredEndpoints(input as UpstreamsFile, options.catalog);
  const deployments = deploymentsOf(options.catalog, scan);
  const problems = [...scan.problems, ...catalogProblems(options.catalog, scan), ...deployments.problems];
  if (problems.length > 0) throw new CatalogError(source, problems);
  const resolved = new Map<string, Endpoint>();
  const warnings: string[] = [];
  for (const [key, declared] of scan.found) {
    if (onSimulator(declared.entry) && options.simulatorUrl === undefined) {
      warnings.push(
        `${declared.path}: baseUrl is 'simulator' but no simulator runs in this process; provider unusable`,
      );
      continue;
    }
    try {
      resolved.set(key, resolve(key, declared, options, deployments.byKey.get(key)));
    } catch (error) {
      problems.push(`${declared.path}.auth: ${(error as Error).message}`);
    }
  }
  if (problems.length > 0) {
    void Promise.all([...resolved.values()].map((endpoint) => endpoint.signer.close()));
    throw new CatalogError(source, problems);
  }
  const keys = new Set(scan.found.keys());
  return {
    upstreams: {
      // A declared family or vendor endpoint never falls back to a wider one, even when unusable.
      endpoint: (provider, family, vendor) => {
        const key = keyFor(keys, provider, { family, vendor: vendor ?? '' });
        return key === undefined ? undefined : resolved.get(key);
      },
      all: () => [...resolved.values()],
      close: async () => {
        await Promise.all([...resolved.values()].map((endpoint) => endpoint.signer.close()));
      },
    },
    warnings,
  };
}
