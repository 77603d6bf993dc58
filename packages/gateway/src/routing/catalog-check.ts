/**
 * `node packages/gateway/src/routing/catalog-check.ts [--credentials] [models.json] [upstreams.json]`:
 * validates data files exactly as start-up does, so an operator can check an edit before
 * deploying it. Defaults to the bundled files; the simulator is assumed present.
 *
 * Credentials are only checked when asked (`--credentials`): the files are usually edited on a
 * machine without the production secrets. Without the flag every `auth` entry is still
 * validated (type, fields, secret locations only) but no secret is read. With it, the secrets
 * are read from this command's environment as start-up reads them (the bundled simulator's
 * `SIM_*` credentials are supplied, as main.ts does), and each missing one is a problem naming
 * its location, never a value. Ambient credentials (aws-default-chain, google-adc, azure-*)
 * have no location: with the flag, each is obtained once from its vendor's library, which
 * reads this process's environment, and a failure names the endpoint.
 */
import { credentialEnv, generateCredentials } from '@app/upstream-simulator';
import { buildCatalog, type Catalog, CatalogError } from './catalog.ts';
import { ambientProblems, declaredAuths } from './catalog-check-ambient.ts';
import { DEFAULT_CATALOG_PATH, DEFAULT_UPSTREAMS_PATH, readJsonFile } from './index.ts';
import { buildUpstreams } from './upstreams.ts';

/** Stands in for the simulator's origin: only its shape matters here. */
const SIMULATOR_URL = 'http://127.0.0.1:9';

export interface CheckOptions {
  /** Read every secret (from `env`) and build the signers, as start-up does. */
  readonly credentials?: boolean;
  /** The clock retirement is judged by (default: now). */
  readonly now?: () => number;
}

type Env = Readonly<Record<string, string | undefined>>;

/**
 * A copy of the upstreams file whose valid `auth` entries are `none`: every other check runs,
 * no secret is read. Invalid entries stay, so their problems are reported as usual.
 */
function withoutSecrets(file: unknown): unknown {
  const copy = structuredClone(file);
  for (const declared of declaredAuths(copy)) if (declared.valid) declared.endpoint.auth = { type: 'none' };
  return copy;
}

/** The bundled simulator's credentials, as main.ts passes them (a real variable wins). */
function simulatorCredentials(): Env {
  return credentialEnv(generateCredentials(), `${SIMULATOR_URL}/google/token`);
}

/** One line per model whose end is announced, so an operator sees what is about to stop. */
function lifecycleLines(catalog: Catalog): string[] {
  const at = catalog.now();
  return catalog.models.flatMap(({ id, lifecycle }) => {
    if (!lifecycle) return [];
    const dates = [
      lifecycle.deprecatedAt && `deprecated ${lifecycle.deprecatedAt}`,
      lifecycle.retiresAt && `${at >= lifecycle.retiredFrom ? 'retired' : 'retires'} ${lifecycle.retiresAt}`,
      lifecycle.successor && `successor ${lifecycle.successor}`,
    ].filter(Boolean);
    const answer = at >= lifecycle.retiredFrom ? ': its names answer 410 model_retired' : '';
    return [`  ${id}: ${dates.join(', ')}${answer}`];
  });
}

export async function checkFiles(
  paths: { catalog?: string; upstreams?: string },
  env: Env,
  options: CheckOptions = {},
): Promise<{ ok: boolean; lines: string[] }> {
  const catalogPath = paths.catalog ?? DEFAULT_CATALOG_PATH;
  const upstreamsPath = paths.upstreams ?? DEFAULT_UPSTREAMS_PATH;
  try {
    const catalog = buildCatalog(
      readJsonFile(catalogPath),
      catalogPath,
      options.now ? { now: options.now } : {},
    );
    const file = readJsonFile(upstreamsPath);
    const { upstreams } = buildUpstreams(options.credentials ? file : withoutSecrets(file), {
      catalog,
      simulatorUrl: SIMULATOR_URL,
      env: options.credentials ? { ...simulatorCredentials(), ...env } : {},
      source: upstreamsPath,
    });
    await upstreams.close();
    const ambient = options.credentials ? await ambientProblems(file, env) : { checked: 0, problems: [] };
    if (ambient.problems.length > 0)
      return {
        ok: false,
        lines: [
          `${upstreamsPath}: ambient credentials not obtained`,
          ...ambient.problems.map((p) => `  - ${p}`),
        ],
      };
    const aliases = catalog.models.reduce((sum, model) => sum + catalog.aliasesOf(model).length, 0);
    const obtained = ambient.checked === 0 ? '' : ` (${ambient.checked} ambient obtained)`;
    const credentials = options.credentials
      ? `credentials present${obtained}`
      : 'credentials not read (--credentials reads them from this environment)';
    return {
      ok: true,
      lines: [
        `${catalogPath}: ${catalog.models.length} models, ${aliases} aliases`,
        `${upstreamsPath}: ok, ${credentials}`,
        ...lifecycleLines(catalog),
      ],
    };
  } catch (error) {
    if (error instanceof CatalogError) return { ok: false, lines: error.message.split('\n') };
    throw error;
  }
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const [catalog, upstreams] = args.filter((arg) => arg !== '--credentials');
  const result = await checkFiles(
    { ...(catalog ? { catalog } : {}), ...(upstreams ? { upstreams } : {}) },
    process.env,
    { credentials: args.includes('--credentials') },
  );
  for (const line of result.lines) (result.ok ? console.log : console.error)(line);
  process.exitCode = result.ok ? 0 : 1;
}
