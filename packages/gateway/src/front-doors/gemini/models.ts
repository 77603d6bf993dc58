/**
 * GET /{version}/models in Gemini's shape, from the gateway's live list (every model this
 * account can use now, aliases as entries of their own): Google's field names, its pagination
 * (`pageSize` default 50, at most 1000; an opaque `pageToken`). Pure functions.
 */
import type { ListedModel } from '../../contracts.ts';
import { gatewayErrors } from '../../errors.ts';
import { GEMINI_METHODS, resourceName } from './path.ts';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 1000;

export interface GeminiModel {
  readonly name: string;
  readonly baseModelId: string;
  readonly version: string;
  readonly displayName: string;
  readonly description: string;
  readonly inputTokenLimit: number;
  readonly outputTokenLimit: number;
  readonly supportedGenerationMethods: readonly string[];
  readonly thinking: boolean;
}

export interface ModelPage {
  readonly models: readonly GeminiModel[];
  readonly nextPageToken?: string;
}

/**
 * An alias (`gemini-flash`) is listed under its own name with the exact version it resolves to
 * now as `baseModelId` and `version`, so a client can call either name.
 */
export function geminiModel(entry: ListedModel): GeminiModel {
  const version = entry.aliasOf ?? entry.id;
  const providers = entry.providers.join(', ');
  const alias = entry.aliasOf === undefined ? '' : `Alias of ${entry.aliasOf}. `;
  return {
    name: resourceName(entry.id),
    baseModelId: version,
    version,
    displayName: entry.id,
    description: `${alias}${entry.vendor} ${entry.family} model, served by ${providers}. Name a provider with @<provider> and options with :<modifier> (GET /v1/models lists them).`,
    inputTokenLimit: entry.contextWindow,
    outputTokenLimit: entry.maxOutputTokens,
    supportedGenerationMethods: [...GEMINI_METHODS],
    // Thinking can be asked for (thinkingConfig or an effort modifier) when an effort above none is accepted.
    thinking: entry.efforts.some((effort) => effort !== 'none'),
  };
}

const TOKEN_PREFIX = 'offset:';

function pageToken(offset: number): string {
  return Buffer.from(`${TOKEN_PREFIX}${offset}`).toString('base64url');
}

function offsetOf(token: string): number {
  const text = Buffer.from(token, 'base64url').toString('utf8');
  const offset = text.startsWith(TOKEN_PREFIX) ? Number(text.slice(TOKEN_PREFIX.length)) : Number.NaN;
  if (Number.isSafeInteger(offset) && offset >= 0) return offset;
  throw gatewayErrors.create(
    'invalid_request',
    { reason: 'The pageToken is not one this gateway returned as nextPageToken.' },
    { param: 'pageToken' },
  );
}

/**
 * One page. The list is computed live, so a page token is a position in it: a model that became
 * usable or unusable between two pages can shift the next page by one entry, as any live list does.
 */
export function modelPage(
  entries: readonly ListedModel[],
  query: { readonly pageSize?: number | undefined; readonly pageToken?: string | undefined },
): ModelPage {
  const size = Math.min(query.pageSize || DEFAULT_PAGE_SIZE, MAX_PAGE_SIZE);
  const start = query.pageToken ? offsetOf(query.pageToken) : 0;
  const end = start + size;
  const models = entries.slice(start, end).map(geminiModel);
  return end < entries.length ? { models, nextPageToken: pageToken(end) } : { models };
}
