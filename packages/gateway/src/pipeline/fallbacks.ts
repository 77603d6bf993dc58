/**
 * The client's fallback list: model names tried in order after `model`, from the body field
 * `models` (OpenRouter's) or the header `X-Gateway-Fallbacks` (for clients that can only set
 * headers). Every entry is resolved before anything is reserved or sent, so a list the gateway
 * could not serve is a 400 naming its entry, never a surprise after the primary failed.
 */
import { isAppError } from '@app/http-kit';
import type { RoutePlan, Router } from '../contracts.ts';
import { gatewayErrors } from '../errors.ts';

export const FALLBACKS_HEADER = 'x-gateway-fallbacks';
/** The header as clients write it and as error `param`s name it. */
export const FALLBACKS_HEADER_NAME = 'X-Gateway-Fallbacks';
/**
 * Each entry may go to GATEWAY_FAILOVER_ATTEMPTS providers with their retries, all within one
 * deadline: five entries already allow 18 upstream calls for one request.
 */
export const MAX_FALLBACKS = 5;
/** The router's longest model name (routing/resolve.ts): a longer one cannot exist in the catalog. */
export const MAX_FALLBACK_LENGTH = 256;

type Headers = Readonly<Record<string, string | string[] | undefined>>;

/** One entry of the list and how an error names it (`models[1]`, or the header and a position). */
interface Entry {
  readonly name: string;
  readonly param: string;
  readonly label: string;
}

/**
 * Resolves the client's fallback list with the same header inputs as the primary model (so
 * modifier > header > default holds per entry). The body field wins over the header. Throws a
 * 400 `invalid_request` whose `param` and message name the first entry that cannot be used.
 */
export function resolveFallbacks(
  router: Pick<Router, 'resolve'>,
  models: readonly string[] | undefined,
  headers: Headers,
  inputs: Headers,
): readonly RoutePlan[] {
  const entries = models === undefined ? headerEntries(headers) : bodyEntries(models);
  return entries.map((entry) => resolveEntry(router, entry, inputs));
}

/** The body was checked by the route's schema (count, type, length); this only names entries. */
function bodyEntries(models: readonly string[]): Entry[] {
  return models.map((name, i) => ({ name, param: `models[${i}]`, label: `'models[${i}]'` }));
}

/** The header's value, or undefined when absent or blank; repeated headers arrive joined by commas. */
export function fallbacksHeader(headers: Headers): string | undefined {
  const raw = headers[FALLBACKS_HEADER];
  const value = (Array.isArray(raw) ? raw.join(', ') : raw)?.trim();
  return value === undefined || value === '' ? undefined : value;
}

/** The header's comma-separated list, checked to the body field's limits. */
function headerEntries(headers: Headers): Entry[] {
  const value = fallbacksHeader(headers);
  if (value === undefined) return [];
  const names = value.split(',').map((name) => name.trim());
  if (names.length > MAX_FALLBACKS)
    throw invalidHeader(
      `${FALLBACKS_HEADER_NAME} lists ${names.length} models; at most ${MAX_FALLBACKS} are accepted.`,
    );
  return names.map((name, i) => {
    const label = `${FALLBACKS_HEADER_NAME} entry ${i + 1}`;
    if (name === '') throw invalidHeader(`${label} is empty; separate model names with single commas.`);
    if (name.length > MAX_FALLBACK_LENGTH)
      throw invalidHeader(`${label} is longer than ${MAX_FALLBACK_LENGTH} characters.`);
    return { name, param: FALLBACKS_HEADER_NAME, label };
  });
}

function invalidHeader(reason: string) {
  return gatewayErrors.create('invalid_request', { reason }, { param: FALLBACKS_HEADER_NAME });
}

/**
 * The router's refusal (unknown or retired model, bad modifier, unknown provider), as a 400 for
 * the list: the request is what must change, whatever status the same name gets as `model`.
 */
function resolveEntry(router: Pick<Router, 'resolve'>, entry: Entry, inputs: Headers): RoutePlan {
  try {
    return router.resolve(entry.name, inputs);
  } catch (error) {
    if (!isAppError(error)) throw error;
    const reason = `Fallback model '${entry.name}' (${entry.label}) cannot be used: ${error.message}`;
    throw gatewayErrors.create('invalid_request', { reason }, { param: entry.param, cause: error });
  }
}

/**
 * Entries that would repeat an earlier attempt exactly (the same model version, explicit
 * provider and options as `model` or an earlier entry) are dropped: trying them again would
 * only send the same request to the same providers once more.
 */
export function distinctFallbacks(
  primary: RoutePlan,
  fallbacks: readonly RoutePlan[],
): { readonly kept: readonly RoutePlan[]; readonly dropped: readonly string[] } {
  const seen = new Set([attemptKey(primary)]);
  const kept: RoutePlan[] = [];
  const dropped: string[] = [];
  for (const plan of fallbacks) {
    const key = attemptKey(plan);
    if (seen.has(key)) dropped.push(plan.requested);
    else {
      seen.add(key);
      kept.push(plan);
    }
  }
  return { kept, dropped };
}

function attemptKey(plan: RoutePlan): string {
  const { effort, tier, compression } = plan.options;
  return `${plan.model}|${plan.explicitProvider ?? ''}|${effort}|${tier}|${compression}`;
}

/**
 * What X-Gateway-Ignored reports about the list: the header when the body field overrode it,
 * and the entries dropped as repeats.
 */
export function ignoredFallbackInputs(
  models: readonly string[] | undefined,
  headers: Headers,
  dropped: readonly string[],
): string[] {
  const ignored: string[] = [];
  const header = fallbacksHeader(headers);
  if (models !== undefined && header !== undefined) ignored.push(`${FALLBACKS_HEADER}=${header}`);
  if (dropped.length > 0) ignored.push(`fallbacks=${dropped.join(', ')}`);
  return ignored;
}

/**
 * The body as it goes upstream: `models` is the gateway's, and an upstream of the same API
 * would refuse it as an unknown parameter. Copied only when present.
 */
export function withoutFallbacks<T extends { models?: unknown }>(body: T): T {
  if (body.models === undefined) return body;
  const copy = { ...body };
  delete copy.models;
  return copy;
}
