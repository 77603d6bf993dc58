/**
 * `node packages/gateway/src/routing/catalog-check.ts [models.json] [upstreams.json]`: validates
 * data files exactly as start-up does, so an operator can check an edit before deploying it.
 * Defaults to the bundled files; the simulator is assumed present, secrets are read from the
 * environment of this command.
 */
import { buildCatalog, CatalogError } from './catalog.ts';
import { DEFAULT_CATALOG_PATH, DEFAULT_UPSTREAMS_PATH, readJsonFile } from './index.ts';
import { buildUpstreams } from './upstreams.ts';

export function checkFiles(
  paths: { catalog?: string; upstreams?: string },
  env: Readonly<Record<string, string | undefined>>,
): { ok: boolean; lines: string[] } {
  const catalogPath = paths.catalog ?? DEFAULT_CATALOG_PATH;
  const upstreamsPath = paths.upstreams ?? DEFAULT_UPSTREAMS_PATH;
  try {
    const catalog = buildCatalog(readJsonFile(catalogPath), catalogPath);
    buildUpstreams(readJsonFile(upstreamsPath), {
      catalog,
      simulatorUrl: 'http://127.0.0.1/simulator',
      env,
      source: upstreamsPath,
    });
    const aliases = catalog.models.reduce((sum, model) => sum + model.aliases.length, 0);
    return {
      ok: true,
      lines: [`${catalogPath}: ${catalog.models.length} models, ${aliases} aliases`, `${upstreamsPath}: ok`],
    };
  } catch (error) {
    if (error instanceof CatalogError) return { ok: false, lines: error.message.split('\n') };
    throw error;
  }
}

if (import.meta.main) {
  const [catalog, upstreams] = process.argv.slice(2);
  const result = checkFiles(
    { ...(catalog ? { catalog } : {}), ...(upstreams ? { upstreams } : {}) },
    process.env,
  );
  for (const line of result.lines) (result.ok ? console.log : console.error)(line);
  process.exitCode = result.ok ? 0 : 1;
}
