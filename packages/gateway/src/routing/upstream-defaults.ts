/**
 * What an endpoint entry means for its adapter: the non-secret parameters its URLs need, with
 * the API's default base URL, and whether the adapter can send an offer's efforts and tools.
 */
import {
  ADAPTER_TRAITS,
  type AdapterId,
  type EndpointParams,
  type OfferProfile,
} from '@app/provider-adapters';
import type { EndpointEntry } from './catalog-schema.ts';

function regionOf(entry: EndpointEntry): string | undefined {
  if ('region' in entry) return entry.region;
  if ('location' in entry) return entry.location;
  return undefined;
}

export function endpointParams(entry: EndpointEntry, substitute: (url: string) => string): EndpointParams {
  const region = regionOf(entry);
  const fallback = ADAPTER_TRAITS[entry.adapter].defaultBaseUrl(region === undefined ? {} : { region });
  const baseUrl = substitute(('baseUrl' in entry ? entry.baseUrl : undefined) ?? fallback ?? '').replace(
    /\/+$/,
    '',
  );
  return {
    baseUrl,
    ...(region === undefined ? {} : { region }),
    ...('project' in entry ? { project: entry.project } : {}),
    ...('apiVersion' in entry && entry.apiVersion ? { apiVersion: entry.apiVersion } : {}),
  };
}

/** Why an offer cannot be served through this adapter (empty: it can). */
export function adapterProblems(adapter: AdapterId, profile: OfferProfile): string[] {
  const traits = ADAPTER_TRAITS[adapter];
  const problems: string[] = [];
  for (const [effort, expression] of Object.entries(profile.efforts)) {
    if (expression && !traits.effortKinds.has(expression.kind))
      problems.push(
        `effort '${effort}' is a '${expression.kind}' expression, which adapter '${adapter}' cannot send`,
      );
  }
  if (profile.webSearchTool !== undefined && !traits.webSearch)
    problems.push(`offers web search, which adapter '${adapter}' has no tool for`);
  return problems;
}
