/**
 * Embedding models in the catalog. They carry none of a chat model's fields (context window,
 * output limit, efforts, compression) and their offers no effort profile; the catalog gives
 * them fixed values instead, so that one resolver, one router and one cost function serve both
 * kinds: the only effort is `none` (sent as nothing), the only compression `off`, the output
 * limit 0, and the context window a whole request's worth of input (what usage is bounded by).
 */
import type { EffortExpression } from '@app/provider-adapters';
import type { Compression, Effort } from '../contracts.ts';
import type { Capabilities, EmbeddingSpec, ModelEntry, ModelKind, OfferEntry } from './catalog-schema.ts';

/** A chat model's fields, required on one and refused on an embedding model. */
const CHAT_FIELDS = [
  'contextWindow',
  'maxOutputTokens',
  'capabilities',
  'efforts',
  'defaultEffort',
  'compression',
] as const;
const CHAT_OFFER_FIELDS = ['effort', 'webSearchTool', 'defaultMaxOutputTokens', 'capabilities'] as const;

/** A chat model entry once its required fields are known to be there. */
export type ChatEntry = ModelEntry & Required<Pick<ModelEntry, (typeof CHAT_FIELDS)[number]>>;

export const EMBEDDING_EFFORTS: readonly Effort[] = ['none'];
export const EMBEDDING_EXPRESSIONS: Partial<Record<Effort, EffortExpression>> = { none: { kind: 'omit' } };
export const EMBEDDING_COMPRESSIONS: readonly Compression[] = ['off'];
export const NO_CAPABILITIES: Capabilities = { tools: false, vision: false, webSearch: false };

export function kindOf(entry: ModelEntry): ModelKind {
  return entry.kind ?? 'chat';
}

export function isChatEntry(entry: ModelEntry): entry is ChatEntry {
  return kindOf(entry) === 'chat' && CHAT_FIELDS.every((field) => entry[field] !== undefined);
}

/** The most input tokens one request can carry: what a request's usage is bounded by. */
export function embeddingInputWindow(spec: EmbeddingSpec): number {
  return spec.maxInputs * spec.maxInputTokens;
}

function offers(model: ModelEntry): [string, OfferEntry][] {
  return Object.entries(model.providers).filter((entry): entry is [string, OfferEntry] => !!entry[1]);
}

/** A chat model's required fields that are missing, and embedding settings it must not have. */
export function chatShapeProblems(model: ModelEntry, path: string): string[] {
  const problems = CHAT_FIELDS.filter((field) => model[field] === undefined).map(
    (field) => `${path}.${field}: required`,
  );
  if (model.embedding !== undefined) problems.push(`${path}.embedding: only for a model of kind 'embedding'`);
  for (const [provider, offer] of offers(model))
    if (offer.effort === undefined)
      problems.push(`${path}.providers.${provider}.effort: required for a chat model`);
  return problems;
}

function dimensionProblems(spec: EmbeddingSpec, path: string): string[] {
  const problems: string[] = [];
  const { dimensions, minDimensions, dimensionValues } = spec;
  if (minDimensions !== undefined && dimensionValues !== undefined)
    problems.push(`${path}: minDimensions or dimensionValues, not both`);
  if (minDimensions !== undefined && minDimensions > dimensions)
    problems.push(`${path}.minDimensions: larger than dimensions`);
  if (dimensionValues !== undefined && !dimensionValues.includes(dimensions))
    problems.push(`${path}.dimensionValues: must include dimensions (${dimensions}), the default`);
  if (dimensionValues?.some((value) => value > dimensions))
    problems.push(`${path}.dimensionValues: a value is larger than dimensions`);
  return problems;
}

export function embeddingProblems(model: ModelEntry, path: string): string[] {
  const spec = model.embedding;
  if (spec === undefined) return [`${path}.embedding: required for an embedding model`];
  const problems = dimensionProblems(spec, `${path}.embedding`);
  for (const field of CHAT_FIELDS)
    if (model[field] !== undefined)
      problems.push(`${path}.${field}: a chat model's field, not an embedding model's`);
  for (const [provider, offer] of offers(model)) {
    const at = `${path}.providers.${provider}`;
    for (const field of CHAT_OFFER_FIELDS)
      if (offer[field] !== undefined)
        problems.push(`${at}.${field}: a chat offer's field, not an embedding offer's`);
    if (offer.prices.flex !== undefined) problems.push(`${at}.prices.flex: embeddings have no flex tier`);
    for (const key of Object.keys(offer.prices.standard))
      if (key !== 'input')
        problems.push(
          `${at}.prices.standard.${key}: embeddings are priced on \`input\` only (they report no other meter)`,
        );
  }
  return problems;
}
