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
 * reads this process's environment, and a failure names the endpoint. Endpoints that say where
 * their deployments are listed (`management`) have them listed with the flag, and every
 * deployment the endpoint would call that does not exist is named with its model.
 */
import { credentialEnv, generateCredentials } from '@app/upstream-simulator';
import { buildCatalog, type Catalog, CatalogError } from './catalog.ts';
import { ambientProblems } from './catalog-check-ambient.ts';
import { deploymentProblems } from './catalog-check-deployments.ts';
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

/** The bundled simulator's credentials, as main.ts passes them (a real variable wins). */
function simulatorCredentials(): Env {
  return credentialEnv(generateCredentials(), `${SIMULATOR_URL}/google/token`);
}

const heading = (title: string, problems: readonly string[]): string[] =>
  problems.length === 0 ? [] : [title, ...problems.map((problem) => `  - ${problem}`)];

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
    const secretsEnv = { ...simulatorCredentials(), ...env };
    const { upstreams } = buildUpstreams(file, {
      catalog,
      simulatorUrl: SIMULATOR_URL,
      env: options.credentials ? secretsEnv : {},
      source: upstreamsPath,
      readSecrets: options.credentials === true,
    });
    const none = { checked: 0, problems: [] };
    const [ambient, deployments] = options.credentials
      ? await Promise.all([ambientProblems(file, env), deploymentProblems(upstreams, catalog, secretsEnv)])
      : [none, none];
    await upstreams.close();
    const failed = [
      ...heading(`${upstreamsPath}: ambient credentials not obtained`, ambient.problems),
      ...heading(`${upstreamsPath}: deployments missing or not listed`, deployments.problems),
    ];
    if (failed.length > 0) return { ok: false, lines: failed };
    const aliases = catalog.models.reduce((sum, model) => sum + catalog.aliasesOf(model).length, 0);
    const checked = [
      ...(ambient.checked === 0 ? [] : [`${ambient.checked} ambient obtained`]),
      ...(deployments.checked === 0 ? [] : [`deployments of ${deployments.checked} listed`]),
    ];
    const credentials = options.credentials
      ? `credentials present${checked.length === 0 ? '' : ` (${checked.join(', ')})`}`
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
