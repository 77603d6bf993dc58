/**
 * Ambient credentials for `catalog-check --credentials`: an `aws-default-chain`, `google-adc`
 * or `azure-*` entry has no location to read, so the check asks the vendor's library for a
 * credential, as the first request would, in this process's environment. Run on the host (or
 * in the pod) that will serve, it shows whether the instance role, workload identity or
 * managed identity is reachable there.
 */
import { AUTH_SCHEMAS, createSigner, isAmbient, type AuthEntry } from '../upstream/credentials/index.ts';
import { taggedProblems } from './schema-errors.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** Metadata endpoints retry for a while before they give up (Azure IMDS: about 20 s). */
export const PROBE_TIMEOUT_MS = 30_000;
/** Signed, never sent. */
const PROBE_REQUEST = {
  method: 'POST',
  url: 'https://credentials-check.invalid/',
  headers: {},
  body: '',
} as const;

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

export interface DeclaredAuth {
  /** `providers.cloud_a.vendors.anthropic`. */
  readonly path: string;
  readonly endpoint: Record<string, unknown>;
  /** Valid against its schema (invalid entries are reported by the normal validation). */
  readonly valid: boolean;
}

/** Every endpoint of an upstreams file that has an `auth` entry, with its path. */
export function declaredAuths(file: unknown): DeclaredAuth[] {
  if (!isObject(file) || !isObject(file.providers)) return [];
  const found: DeclaredAuth[] = [];
  for (const [provider, section] of Object.entries(file.providers)) {
    if (!isObject(section)) continue;
    const entries: [string, unknown][] = [[`providers.${provider}.default`, section.default]];
    for (const kind of ['vendors', 'families'] as const) {
      const map = section[kind];
      if (isObject(map))
        for (const [name, value] of Object.entries(map))
          entries.push([`providers.${provider}.${kind}.${name}`, value]);
    }
    for (const [path, endpoint] of entries) {
      if (!isObject(endpoint) || endpoint.auth === undefined) continue;
      const valid = taggedProblems(AUTH_SCHEMAS, 'type', endpoint.auth, '').length === 0;
      found.push({ path, endpoint, valid });
    }
  }
  return found;
}

const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

async function probe(declared: DeclaredAuth, env: Env): Promise<string | undefined> {
  const { endpoint } = declared;
  const region = text(endpoint.region);
  const project = text(endpoint.project);
  const signal = AbortSignal.timeout(PROBE_TIMEOUT_MS);
  try {
    const signer = createSigner(endpoint.auth as AuthEntry, {
      env,
      ...(region === undefined ? {} : { region }),
      ...(project === undefined ? {} : { project }),
    });
    try {
      await signer.sign(PROBE_REQUEST, signal);
    } finally {
      await signer.close();
    }
    return undefined;
  } catch (error) {
    const reason = signal.aborted
      ? `no credential within ${PROBE_TIMEOUT_MS / 1000} s`
      : (error as Error).message;
    return `${declared.path}.auth: ${reason}`;
  }
}

/** Obtains each ambient credential once; the problems name the endpoint, never a credential. */
export async function ambientProblems(
  file: unknown,
  env: Env,
): Promise<{ checked: number; problems: string[] }> {
  const ambient = declaredAuths(file).filter(
    (declared) => declared.valid && isAmbient(declared.endpoint.auth as AuthEntry),
  );
  const results = await Promise.all(ambient.map((declared) => probe(declared, env)));
  return { checked: ambient.length, problems: results.filter((problem) => problem !== undefined) };
}
