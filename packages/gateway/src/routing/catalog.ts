/**
 * The model catalog: validated once at start-up (schema, then cross-checks), then indexed for
 * O(1) name lookups on the request path. Every problem is collected so an operator fixes the
 * file in one pass.
 */
import {
  type Compression,
  EFFORTS,
  type Effort,
  PROVIDERS,
  type Price,
  type ProviderId,
  TIERS,
  type Tier,
} from '../contracts.ts';
import type { EffortExpression, OfferProfile } from '@app/provider-adapters';
import {
  type Capabilities,
  type CatalogFile,
  CatalogFileSchema,
  EFFORT_EXPRESSION_BRANCHES,
  type EffortProfileEntry,
  type EmbeddingSpec,
  type ModelEntry,
  type ModelKind,
  type OfferEntry,
} from './catalog-schema.ts';
import {
  type ChatEntry,
  chatShapeProblems,
  EMBEDDING_COMPRESSIONS,
  EMBEDDING_EFFORTS,
  EMBEDDING_EXPRESSIONS,
  embeddingInputWindow,
  embeddingProblems,
  isChatEntry,
  kindOf,
  NO_CAPABILITIES,
} from './catalog-embeddings.ts';
import {
  familyTimeline,
  instantOf,
  type Lifecycle,
  lifecycleOf,
  lifecycleProblems,
  type Stretch,
} from './catalog-lifecycle.ts';
import { priceOf, priceProblems } from './prices.ts';
import { schemaProblems, taggedProblems } from './schema-errors.ts';

export class CatalogError extends Error {
  readonly problems: readonly string[];
  constructor(source: string, problems: readonly string[]) {
    super(`Invalid ${source}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'CatalogError';
    this.problems = problems;
  }
}

/** One provider's offer of a model, with the model's sets already narrowed to the provider. */
export interface Offer {
  readonly provider: ProviderId;
  readonly upstreamModel: string;
  readonly prices: Readonly<Partial<Record<Tier, Price>>> & { readonly standard: Price };
  /** The efforts this provider accepts for the model: the keys of its effort profile. */
  readonly efforts: readonly Effort[];
  readonly tiers: readonly Tier[];
  readonly capabilities: Capabilities;
  /** What the adapter needs: upstream id, effort expressions, tiers, web search tool, limits. */
  readonly profile: OfferProfile;
}

export interface CatalogModel {
  readonly id: string;
  /** Which front doors answer it: chat completions and the like, or embeddings. */
  readonly kind: ModelKind;
  /** Dimensions and input limits of an embedding model; undefined for a chat model. */
  readonly embedding: EmbeddingSpec | undefined;
  readonly family: string;
  readonly vendor: string;
  /** Unix seconds of the release date (`created` in /v1/models). */
  readonly created: number;
  /** Fixed other names of this exact version (the vendor's undated name); they retire with it. */
  readonly versionAliases: readonly string[];
  /** Deprecation and retirement as the vendor announced them; undefined when nothing is announced. */
  readonly lifecycle: Lifecycle | undefined;
  readonly contextWindow: number;
  readonly maxOutputTokens: number;
  readonly capabilities: Capabilities;
  readonly efforts: readonly Effort[];
  readonly defaultEffort: Effort;
  /** Tiers offered by at least one provider. */
  readonly tiers: readonly Tier[];
  readonly compressions: readonly Compression[];
  /** Offers in PROVIDERS order. */
  readonly offers: ReadonlyMap<ProviderId, Offer>;
}

export interface Catalog {
  /** Exact versions, newest first within the order of the file's families. */
  readonly models: readonly CatalogModel[];
  /** The clock retirement is judged by (Date.now unless a test injects one). */
  readonly now: () => number;
  /**
   * An exact id or an alias -> the model it names at `at` (default: now); undefined when unknown.
   * A family alias names the newest version not retired at `at`; an exact id or a version alias
   * names its version even once retired (the caller answers 410 for it, see `isRetired`). The
   * clock is read only for a family alias whose target changes over time.
   */
  lookup(name: string, at?: number): CatalogModel | undefined;
  /** Every alias that names this version at `at` (default: now): family aliases, then its own. */
  aliasesOf(model: CatalogModel, at?: number): readonly string[];
}

export interface CatalogOptions {
  readonly now?: () => number;
}

function duplicates(values: readonly string[]): string[] {
  const seen = new Set<string>();
  return [...new Set(values.filter((value) => seen.has(value) || !seen.add(value)))];
}

type Profiles = CatalogFile['effortProfiles'];

function profileEfforts(profile: EffortProfileEntry): Effort[] {
  return EFFORTS.filter((effort) => profile[effort] !== undefined);
}

function offerProblems(model: ChatEntry, offer: OfferEntry, path: string, profiles: Profiles): string[] {
  const problems: string[] = [];
  if (offer.effort === undefined) return problems;
  const profile = profiles[offer.effort];
  if (!profile) problems.push(`${path}.effort: unknown effort profile '${offer.effort}'`);
  for (const effort of profile ? profileEfforts(profile) : []) {
    if (!model.efforts.includes(effort))
      problems.push(
        `${path}.effort: profile '${offer.effort}' accepts '${effort}', which is not in the model's efforts (${model.efforts.join(', ')})`,
      );
  }
  if (profile && profile[model.defaultEffort] === undefined)
    problems.push(
      `${path}.effort: profile '${offer.effort}' must accept the model's defaultEffort '${model.defaultEffort}'`,
    );
  const webSearch = model.capabilities.webSearch && offer.capabilities?.webSearch !== false;
  if (webSearch && offer.webSearchTool === undefined)
    problems.push(`${path}.webSearchTool: required where the offer has web search`);
  if ((offer.defaultMaxOutputTokens ?? 0) > model.maxOutputTokens)
    problems.push(`${path}.defaultMaxOutputTokens: larger than the model's maxOutputTokens`);
  for (const [name, enabled] of Object.entries(offer.capabilities ?? {})) {
    if (enabled && !model.capabilities[name as keyof Capabilities])
      problems.push(`${path}.capabilities.${name}: the model itself lacks it; a provider can only restrict`);
  }
  if (offer.upstreamModel.trim() !== offer.upstreamModel)
    problems.push(`${path}.upstreamModel: leading or trailing whitespace`);
  for (const tier of TIERS) {
    const price = offer.prices[tier];
    if (price) problems.push(...priceProblems(price, `${path}.prices.${tier}`));
  }
  return problems;
}

function modelProblems(
  model: ModelEntry,
  index: number,
  families: ReadonlySet<string>,
  profiles: Profiles,
): string[] {
  const path = `models[${index}]`;
  const problems: string[] = [];
  if (!families.has(model.family)) problems.push(`${path}.family: unknown family '${model.family}'`);
  if (instantOf(model.released) === undefined) problems.push(`${path}.released: not a valid date`);
  if (!PROVIDERS.some((provider) => model.providers[provider] !== undefined))
    problems.push(`${path}.providers: at least one provider must serve the model`);
  if (kindOf(model) === 'embedding') return [...problems, ...embeddingProblems(model, path)];
  const shape = chatShapeProblems(model, path);
  if (shape.length > 0 || !isChatEntry(model)) return [...problems, ...shape];
  return [...problems, ...chatProblems(model, path, profiles)];
}

function chatProblems(model: ChatEntry, path: string, profiles: Profiles): string[] {
  const problems: string[] = [];
  if (!model.efforts.includes(model.defaultEffort))
    problems.push(
      `${path}.defaultEffort: '${model.defaultEffort}' is not in efforts (${model.efforts.join(', ')})`,
    );
  for (const value of duplicates(model.efforts)) problems.push(`${path}.efforts: '${value}' listed twice`);
  for (const value of duplicates(model.compression))
    problems.push(`${path}.compression: '${value}' listed twice`);
  if (!model.compression.includes('off')) problems.push(`${path}.compression: must include 'off'`);
  if (model.maxOutputTokens > model.contextWindow)
    problems.push(`${path}.maxOutputTokens: larger than contextWindow`);
  const offered = PROVIDERS.filter((provider) => model.providers[provider] !== undefined);
  for (const provider of offered) {
    const offer = model.providers[provider] as OfferEntry;
    problems.push(...offerProblems(model, offer, `${path}.providers.${provider}`, profiles));
  }
  return problems;
}

function nameProblems(file: CatalogFile): string[] {
  const problems: string[] = [];
  for (const id of duplicates(file.models.map((model) => model.id)))
    problems.push(`models: duplicate id '${id}'`);
  for (const id of duplicates(file.families.map((family) => family.id)))
    problems.push(`families: duplicate id '${id}'`);
  const ids = new Set(file.models.map((model) => model.id));
  const aliases = [
    ...file.families.flatMap((family) =>
      family.aliases.map((alias) => ({ alias, owner: `family '${family.id}'` })),
    ),
    ...file.models.flatMap((model) =>
      (model.aliases ?? []).map((alias) => ({ alias, owner: `model '${model.id}'` })),
    ),
  ];
  for (const name of duplicates(aliases.map((entry) => entry.alias)))
    problems.push(`aliases: '${name}' is declared more than once`);
  for (const { alias, owner } of aliases) {
    if (ids.has(alias)) problems.push(`aliases: '${alias}' of ${owner} is also an exact model id`);
  }
  return problems;
}

/** Every family has a model; ties for the newest are a data error (the alias target would be a guess). */
function familyProblems(file: CatalogFile): string[] {
  const problems: string[] = [];
  for (const family of file.families) {
    const members = file.models.filter((model) => model.family === family.id);
    if (members.length === 0) {
      problems.push(`families: '${family.id}' has no models`);
      continue;
    }
    const sorted = [...members].sort((a, b) => b.released.localeCompare(a.released));
    const [first, second] = sorted;
    if (first && second && first.released === second.released && family.aliases.length > 0)
      problems.push(
        `families: '${family.id}' has two newest versions released ${first.released} (${first.id}, ${second.id}); its aliases would be ambiguous`,
      );
  }
  return problems;
}

/** The fields of a model that its offers narrow, whichever its kind. */
interface ModelTraits {
  readonly capabilities: Capabilities;
  readonly maxOutputTokens: number;
  readonly fixedSampling?: boolean | undefined;
}

function expressionsOf(entry: OfferEntry, profiles: Profiles): Partial<Record<Effort, EffortExpression>> {
  if (entry.effort === undefined) return EMBEDDING_EXPRESSIONS;
  return (profiles[entry.effort] ?? {}) as Partial<Record<Effort, EffortExpression>>;
}

function toOffer(model: ModelTraits, provider: ProviderId, entry: OfferEntry, profiles: Profiles): Offer {
  const expressions = expressionsOf(entry, profiles);
  const tiers = TIERS.filter((tier) => entry.prices[tier] !== undefined);
  const capabilities = { ...model.capabilities, ...entry.capabilities };
  return {
    provider,
    upstreamModel: entry.upstreamModel,
    prices: {
      standard: priceOf(entry.prices.standard),
      ...(entry.prices.flex ? { flex: priceOf(entry.prices.flex) } : {}),
    },
    efforts: EFFORTS.filter((effort) => expressions[effort] !== undefined),
    tiers,
    capabilities,
    profile: {
      upstreamModel: entry.upstreamModel,
      efforts: expressions,
      tiers,
      ...(capabilities.webSearch && entry.webSearchTool ? { webSearchTool: entry.webSearchTool } : {}),
      defaultMaxOutputTokens: entry.defaultMaxOutputTokens ?? model.maxOutputTokens,
      maxOutputTokens: model.maxOutputTokens,
      ...(model.fixedSampling ? { fixedSampling: true } : {}),
    },
  };
}

/** A model's chat-side fields: its own, or an embedding model's fixed ones (catalog-embeddings.ts). */
function traitsOf(entry: ModelEntry) {
  const spec = entry.embedding;
  if (kindOf(entry) === 'embedding' && spec)
    return {
      contextWindow: embeddingInputWindow(spec),
      maxOutputTokens: 0,
      capabilities: NO_CAPABILITIES,
      efforts: EMBEDDING_EFFORTS,
      defaultEffort: 'none' as const,
      compression: EMBEDDING_COMPRESSIONS,
    };
  // Validated before: a chat entry has every field.
  const chat = entry as ChatEntry;
  return chat;
}

function toModel(entry: ModelEntry, vendor: string, profiles: Profiles): CatalogModel {
  const traits = traitsOf(entry);
  const offers = new Map<ProviderId, Offer>();
  for (const provider of PROVIDERS) {
    const offer = entry.providers[provider];
    if (offer) offers.set(provider, toOffer(traits, provider, offer, profiles));
  }
  const tiers = TIERS.filter((tier) => [...offers.values()].some((offer) => offer.tiers.includes(tier)));
  return {
    id: entry.id,
    kind: kindOf(entry),
    embedding: kindOf(entry) === 'embedding' ? entry.embedding : undefined,
    family: entry.family,
    vendor,
    created: Math.floor(Date.parse(`${entry.released}T00:00:00Z`) / 1000),
    versionAliases: entry.aliases ?? [],
    lifecycle: lifecycleOf(entry),
    contextWindow: traits.contextWindow,
    maxOutputTokens: traits.maxOutputTokens,
    capabilities: traits.capabilities,
    efforts: traits.efforts,
    defaultEffort: traits.defaultEffort,
    tiers,
    compressions: traits.compression,
    offers,
  };
}

/** Each effort expression against the one schema its `kind` names. */
function expressionProblems(file: CatalogFile): string[] {
  return Object.entries(file.effortProfiles).flatMap(([name, profile]) =>
    Object.entries(profile).flatMap(([effort, expression]) =>
      taggedProblems(EFFORT_EXPRESSION_BRANCHES, 'kind', expression, `effortProfiles.${name}.${effort}`),
    ),
  );
}

type Timeline = readonly Stretch<CatalogModel>[];

/** The model a name resolves to at `at`; the clock is read only when the name's target moves. */
function resolveAt(timeline: Timeline, at: number | undefined, now: () => number): CatalogModel | undefined {
  if (timeline.length === 1) return timeline[0]?.model;
  const instant = at ?? now();
  return timeline.find((stretch) => instant < stretch.until)?.model;
}

/**
 * Validates a parsed catalog file and indexes it. Throws a CatalogError listing every problem,
 * each named by its path (`models[3].providers.cloud_b.upstreamModel: required`).
 */
export function buildCatalog(input: unknown, source = 'catalog', options: CatalogOptions = {}): Catalog {
  const now = options.now ?? Date.now;
  const shape = schemaProblems(CatalogFileSchema, input);
  if (shape.length > 0) throw new CatalogError(source, shape);
  const file = input as CatalogFile;
  const expressions = expressionProblems(file);
  if (expressions.length > 0) throw new CatalogError(source, expressions);
  const familyIds = new Set(file.families.map((family) => family.id));
  const problems = [
    ...nameProblems(file),
    ...familyProblems(file),
    ...file.models.flatMap((model, index) => modelProblems(model, index, familyIds, file.effortProfiles)),
    ...lifecycleProblems(file),
  ];
  if (problems.length > 0) throw new CatalogError(source, problems);

  const byName = new Map<string, Timeline>();
  const familyAliases = new Map<string, readonly string[]>();
  const models: CatalogModel[] = [];
  for (const family of file.families) {
    const members = file.models
      .filter((model) => model.family === family.id)
      .sort((a, b) => b.released.localeCompare(a.released))
      .map((entry) => toModel(entry, family.vendor, file.effortProfiles));
    models.push(...members);
    for (const model of members) {
      const always: Timeline = [{ until: Number.POSITIVE_INFINITY, model }];
      for (const name of [model.id, ...model.versionAliases]) byName.set(name, always);
    }
    const timeline = familyTimeline(members);
    for (const alias of family.aliases) byName.set(alias, timeline);
    familyAliases.set(family.id, family.aliases);
  }
  const lookup = (name: string, at?: number) => {
    const timeline = byName.get(name);
    return timeline && resolveAt(timeline, at, now);
  };
  return {
    models,
    now,
    lookup,
    aliasesOf: (model, at = now()) => [
      ...(familyAliases.get(model.family) ?? []).filter((alias) => lookup(alias, at) === model),
      ...model.versionAliases,
    ],
  };
}
