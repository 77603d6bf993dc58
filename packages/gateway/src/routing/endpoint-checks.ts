/**
 * Settings of one endpoint that are valid each alone but wrong together, which upstream would
 * show only on the first request (a 404 for a base URL without its version segment, a 502
 * "did not accept the gateway's credentials" for a SigV4 scope in the wrong region). Each is
 * refused at start-up, naming the setting. What each API requires comes from its adapter's
 * traits (`ADAPTER_TRAITS`), so no provider is named here.
 */
import { ADAPTER_TRAITS } from '@app/provider-adapters';
import type { EndpointEntry } from './catalog-schema.ts';

const baseUrlOf = (entry: EndpointEntry): string | undefined =>
  'baseUrl' in entry && entry.baseUrl !== undefined ? entry.baseUrl.replace(/\/+$/, '') : undefined;

function suffixProblems(entry: EndpointEntry, path: string): string[] {
  const suffix = ADAPTER_TRAITS[entry.adapter].baseUrlSuffix;
  const baseUrl = baseUrlOf(entry);
  if (suffix === undefined || baseUrl === undefined || baseUrl.endsWith(suffix)) return [];
  return [
    `${path}.baseUrl: must end with '${suffix}' (adapter '${entry.adapter}' appends only the API's paths after it), e.g. '${baseUrl}${suffix}'`,
  ];
}

/** The host's region, when the adapter recognises the host (a simulator or proxy is not). */
function hostRegion(entry: EndpointEntry): { host: string; region: string } | undefined {
  const regionOfHost = ADAPTER_TRAITS[entry.adapter].regionOfHost;
  const baseUrl = baseUrlOf(entry);
  if (regionOfHost === undefined || baseUrl === undefined || baseUrl.startsWith('simulator'))
    return undefined;
  const host = new URL(baseUrl).hostname;
  const region = regionOfHost(host);
  return region === undefined ? undefined : { host, region };
}

function authRegion(entry: EndpointEntry): string | undefined {
  const region = (entry.auth as { region?: unknown } | undefined)?.region;
  return typeof region === 'string' ? region : undefined;
}

/**
 * The endpoint's region is its host's where the adapter recognises it, else its `region` when
 * the public URL is built from it; a custom host with no recognisable region is left to the
 * credential's own `auth.region`.
 */
function regionProblems(entry: EndpointEntry, path: string): string[] {
  if (ADAPTER_TRAITS[entry.adapter].regionOfHost === undefined || !('region' in entry)) return [];
  const problems: string[] = [];
  const fromHost = hostRegion(entry);
  if (fromHost && fromHost.region !== entry.region)
    problems.push(
      `${path}.region: '${entry.region}' differs from '${fromHost.region}', the region of ${path}.baseUrl's host ${fromHost.host}`,
    );
  const endpoint = fromHost
    ? { region: fromHost.region, from: `${path}.baseUrl` }
    : baseUrlOf(entry) === undefined
      ? { region: entry.region, from: `${path}.region` }
      : undefined;
  const signing = authRegion(entry);
  if (endpoint && signing !== undefined && signing !== endpoint.region)
    problems.push(
      `${path}.auth.region: '${signing}' differs from the endpoint's region '${endpoint.region}' (${endpoint.from}); the upstream refuses a signature scoped to another region`,
    );
  return problems;
}

/** Problems of a schema-valid endpoint entry's settings taken together. */
export function settingProblems(entry: EndpointEntry, path: string): string[] {
  return [...suffixProblems(entry, path), ...regionProblems(entry, path)];
}
