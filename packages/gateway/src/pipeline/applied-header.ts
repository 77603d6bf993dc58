/**
 * `X-Gateway-Applied` and `X-Gateway-Ignored`: RFC 8941 dictionaries, serialised by the
 * `structured-headers` library so quoting and escaping follow the RFC exactly.
 */
import { type BareItem, serializeDictionary, Token } from 'structured-headers';
import type { ProviderId, ResolvedOptions } from '../contracts.ts';

export const APPLIED_HEADER = 'x-gateway-applied';
export const IGNORED_HEADER = 'x-gateway-ignored';
export const COMPRESSION_HEADER = 'x-gateway-compression';

/** Options as applied; the tier may be one the upstream reports serving (`priority`). */
export type AppliedOptions = Partial<
  Omit<ResolvedOptions, 'tier'> & { tier: ResolvedOptions['tier'] | 'priority' }
>;

export interface AppliedState {
  /** Exact model version (aliases resolved). */
  readonly model?: string;
  readonly provider?: ProviderId;
  readonly options?: AppliedOptions;
}

/** RFC 8941 token grammar: starts with ALPHA or `*`, then tchar / `:` / `/`. */
const TOKEN = /^[A-Za-z*][!#$%&'*+\-.^_`|~0-9A-Za-z:/]*$/;

/** A value as a token where the grammar allows it, else as a string (never lost, never invalid). */
function tokenOrString(value: string): BareItem {
  return TOKEN.test(value) ? new Token(value) : value;
}

/** Printable ASCII only: RFC 8941 strings cannot carry other bytes, so they are escaped visibly. */
export function printable(value: string): string {
  return value.replace(/[^\x20-\x7e]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * `model="claude-sonnet-4-5-20250929", provider=cloud_b, effort=high, tier=flex, compression=off`:
 * keys in this fixed order, each left out while still undecided (e.g. an error before selection).
 */
export function formatApplied(state: AppliedState): string {
  const entries: [string, BareItem][] = [];
  if (state.model !== undefined) entries.push(['model', printable(state.model)]);
  if (state.provider !== undefined) entries.push(['provider', new Token(state.provider)]);
  const options = state.options ?? {};
  if (options.effort !== undefined) entries.push(['effort', new Token(options.effort)]);
  if (options.tier !== undefined) entries.push(['tier', new Token(options.tier)]);
  if (options.compression !== undefined) entries.push(['compression', new Token(options.compression)]);
  return serializeDictionary(new Map(entries.map(([key, value]) => [key, [value, new Map()]])));
}

/**
 * `effort=ultra, tier=turbo` from RoutePlan.ignored (`dimension=value` entries); undefined when
 * nothing was ignored so the caller can skip the header. A value that is not a valid token
 * (spaces, leading digit, ...) is sent as a quoted string instead.
 */
export function formatIgnored(ignored: readonly string[]): string | undefined {
  if (ignored.length === 0) return undefined;
  const dictionary = new Map<string, [BareItem, Map<string, BareItem>]>();
  for (const entry of ignored) {
    const at = entry.indexOf('=');
    const key = (at < 0 ? entry : entry.slice(0, at)).toLowerCase();
    const value = at < 0 ? '' : entry.slice(at + 1);
    dictionary.set(key, [tokenOrString(printable(value)), new Map()]);
  }
  return serializeDictionary(dictionary);
}

/** What compression did: the prompt's tokens before and after, or why it forwarded the prompt as sent. */
export type CompressionReport =
  { readonly before: number; readonly after: number } | { readonly fallback: 'budget' | 'deadline' };

/**
 * `input-tokens-before=1200, input-tokens-after=950`: the prompt's tokens before and after
 * compression; `fallback=budget` (or `deadline`) when the request was past the work budget and
 * went as sent.
 */
export function formatCompression(report: CompressionReport): string {
  if ('fallback' in report)
    return serializeDictionary(new Map([['fallback', [new Token(report.fallback), new Map()]]]));
  return serializeDictionary(
    new Map([
      ['input-tokens-before', [report.before, new Map()]],
      ['input-tokens-after', [report.after, new Map()]],
    ]),
  );
}
