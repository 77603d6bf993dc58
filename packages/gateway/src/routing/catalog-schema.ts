/**
 * The two routing data files as TypeBox schemas: `catalog/models.json` (what exists and what it
 * costs) and `catalog/upstreams.*.json` (where each provider is reached). Unknown fields are
 * rejected everywhere so a typo never silently drops a setting.
 */
import { type AdapterId, METER_REGISTRY } from '@app/provider-adapters';
import { type Static, type TProperties, type TSchema, Type } from 'typebox';
import {
  COMPRESSIONS,
  type Compression,
  EFFORTS,
  type Effort,
  MODEL_KINDS,
  PROVIDERS,
} from '../contracts.ts';
export type { ModelKind } from '../contracts.ts';
import { DeploymentsSchema, ManagementSchema } from './deployments.ts';

const strict = { additionalProperties: false } as const;

/** Model ids and aliases cannot contain `:` or `@`: the model-name grammar splits on them. */
export const NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]*$';
const Name = Type.String({ pattern: NAME_PATTERN, maxLength: 128 });
const IsoDate = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' });
/** ISO 8601: a day (`2026-11-30`, from its start, UTC) or a UTC instant (`2026-11-30T17:00:00Z`). */
const IsoInstant = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}(T\\d{2}:\\d{2}:\\d{2}Z)?$' });

// Unsafe only narrows the static type: the runtime schema is the union of literals.
const EffortSchema = Type.Unsafe<Effort>(Type.Union(EFFORTS.map((value) => Type.Literal(value))));
const CompressionSchema = Type.Unsafe<Compression>(
  Type.Union(COMPRESSIONS.map((value) => Type.Literal(value))),
);

/**
 * A rate for any meter of the registry, in its unit: US dollars per million tokens for token
 * meters, per thousand calls for call counts (`web_search_calls`). A name the registry does not
 * know is refused, so a typo never leaves a meter unpriced.
 */
const meterRates = () =>
  Object.fromEntries(
    Object.keys(METER_REGISTRY).map((name) => [name, Type.Optional(Type.Number({ minimum: 0 }))]),
  );

/** Above `abovePromptTokens` prompt tokens these rates replace the base ones; others are kept. */
const PromptSizeTierSchema = Type.Object(
  { abovePromptTokens: Type.Integer({ minimum: 1 }), ...meterRates() },
  { ...strict, minProperties: 2 },
);

const PriceSchema = Type.Object(
  {
    ...meterRates(),
    input: Type.Number({ minimum: 0 }),
    /** Ascending thresholds (Gemini Pro: dearer above 200,000 prompt tokens). */
    byPromptSize: Type.Optional(Type.Array(PromptSizeTierSchema, { minItems: 1 })),
  },
  strict,
);
export type PriceEntry = Static<typeof PriceSchema>;

/** How one gateway effort is sent upstream (the adapter's EffortExpression), one schema per `kind`. */
export const EFFORT_EXPRESSION_BRANCHES = {
  omit: Type.Object({ kind: Type.Literal('omit') }, strict),
  openai: Type.Object({ kind: Type.Literal('openai'), value: Type.String({ minLength: 1 }) }, strict),
  'anthropic-budget': Type.Object(
    {
      kind: Type.Literal('anthropic-budget'),
      budgetTokens: Type.Integer({ minimum: 1024 }),
      effort: Type.Optional(Type.String({ minLength: 1 })),
    },
    strict,
  ),
  'anthropic-adaptive': Type.Object(
    { kind: Type.Literal('anthropic-adaptive'), effort: Type.Optional(Type.String({ minLength: 1 })) },
    strict,
  ),
  'gemini-budget': Type.Object(
    { kind: Type.Literal('gemini-budget'), budgetTokens: Type.Integer({ minimum: 0 }) },
    strict,
  ),
  'gemini-level': Type.Object(
    {
      kind: Type.Literal('gemini-level'),
      level: Type.Union(['MINIMAL', 'LOW', 'MEDIUM', 'HIGH'].map((level) => Type.Literal(level))),
    },
    strict,
  ),
};

/**
 * An expression as the file schema sees it: any object, checked afterwards against the branch
 * its `kind` names (catalog.ts), so a mistake is reported against that branch alone instead of
 * as a mix of every branch's complaints.
 */
const EffortExpressionSchema = Type.Unsafe<
  Static<(typeof EFFORT_EXPRESSION_BRANCHES)[keyof typeof EFFORT_EXPRESSION_BRANCHES]>
>(Type.Object({}, { additionalProperties: true }));

/** A named effort profile: gateway effort -> upstream expression; its keys are the efforts accepted. */
const EffortProfileSchema = Type.Object(
  Object.fromEntries(EFFORTS.map((effort) => [effort, Type.Optional(EffortExpressionSchema)])),
  { ...strict, minProperties: 1 },
);

const CapabilitiesSchema = Type.Object(
  { tools: Type.Boolean(), vision: Type.Boolean(), webSearch: Type.Boolean() },
  strict,
);

/** One provider's offer of a model. A tier is offered exactly when it has a price. */
const OfferSchema = Type.Object(
  {
    /** The upstream's id: Bedrock inference profile, Vertex publisher id, Azure deployment name. */
    upstreamModel: Type.String({ minLength: 1, maxLength: 256 }),
    prices: Type.Object({ standard: PriceSchema, flex: Type.Optional(PriceSchema) }, strict),
    /** Name of an effort profile: which efforts this offer accepts and how each is sent (chat models). */
    effort: Type.Optional(Name),
    /** The upstream's web search tool (`web_search_20250305`, `googleSearch`); required with web search. */
    webSearchTool: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
    /** Output limit sent when the client gives none and the API requires one (default: the model's). */
    defaultMaxOutputTokens: Type.Optional(Type.Integer({ minimum: 1 })),
    /** Restricts the model's capabilities on this provider (can only turn them off). */
    capabilities: Type.Optional(Type.Partial(CapabilitiesSchema)),
  },
  strict,
);

const OffersSchema = Type.Object(
  Object.fromEntries(PROVIDERS.map((provider) => [provider, Type.Optional(OfferSchema)])),
  strict,
);

/**
 * What an embedding model takes and returns. `dimensions` is the full (default) vector length;
 * shorter vectors are asked for with OpenAI's `dimensions`, any length from `minDimensions` up
 * or one of `dimensionValues`; with neither, the model only gives its full length.
 */
const EmbeddingSpecSchema = Type.Object(
  {
    dimensions: Type.Integer({ minimum: 1 }),
    minDimensions: Type.Optional(Type.Integer({ minimum: 1 })),
    dimensionValues: Type.Optional(Type.Array(Type.Integer({ minimum: 1 }), { minItems: 1 })),
    /** Inputs one gateway request may carry (the adapters split them into upstream calls). */
    maxInputs: Type.Integer({ minimum: 1 }),
    /** Tokens one input may be, as the upstream counts them. */
    maxInputTokens: Type.Integer({ minimum: 1 }),
  },
  strict,
);

export const ModelSchema = Type.Object(
  {
    id: Name,
    family: Name,
    /** `chat` (default) or `embedding`: the front doors a model answers on. */
    kind: Type.Optional(Type.Union(MODEL_KINDS.map((kind) => Type.Literal(kind)))),
    /** Required for (and only for) an embedding model. */
    embedding: Type.Optional(EmbeddingSpecSchema),
    /** Release date; the newest of a family is what the family's aliases point to. */
    released: IsoDate,
    /** Fixed extra names of this exact version (e.g. the vendor's undated name). */
    aliases: Type.Optional(Type.Array(Name)),
    // The six below are required for a chat model and absent on an embedding model (catalog.ts).
    contextWindow: Type.Optional(Type.Integer({ minimum: 1 })),
    maxOutputTokens: Type.Optional(Type.Integer({ minimum: 1 })),
    capabilities: Type.Optional(CapabilitiesSchema),
    efforts: Type.Optional(Type.Array(EffortSchema, { minItems: 1 })),
    defaultEffort: Type.Optional(EffortSchema),
    compression: Type.Optional(Type.Array(CompressionSchema, { minItems: 1 })),
    /** The model takes no sampling changes (temperature only 1.0): clients' changes are left out. */
    fixedSampling: Type.Optional(Type.Boolean()),
    providers: OffersSchema,
    /** Where the figures come from; shown in docs, never used by code. */
    source: Type.Optional(Type.String()),
    /** When the vendor deprecated (or will deprecate) this version: it still works, answers say so. */
    deprecatedAt: Type.Optional(IsoInstant),
    /** From this instant the version is retired: its names answer 410, family aliases skip it. */
    retiresAt: Type.Optional(IsoInstant),
    /** The exact version (a model id of this catalog) that replaces this one. */
    successor: Type.Optional(Name),
    /** Where the lifecycle dates come from; shown in docs, never used by code. */
    lifecycleSource: Type.Optional(Type.String()),
  },
  strict,
);

export const FamilySchema = Type.Object(
  {
    id: Name,
    /** `owned_by` in /v1/models. */
    vendor: Name,
    /** Names that always resolve to the newest version of this family. */
    aliases: Type.Array(Name),
  },
  strict,
);

export const CatalogFileSchema = Type.Object(
  {
    effortProfiles: Type.Record(Type.String({ pattern: NAME_PATTERN }), EffortProfileSchema),
    families: Type.Array(FamilySchema, { minItems: 1 }),
    models: Type.Array(ModelSchema, { minItems: 1 }),
  },
  strict,
);

export type CatalogFile = Static<typeof CatalogFileSchema>;
export type ModelEntry = Static<typeof ModelSchema>;
export type OfferEntry = Static<typeof OfferSchema>;
export type Capabilities = Static<typeof CapabilitiesSchema>;
export type EmbeddingSpec = Static<typeof EmbeddingSpecSchema>;
export type EffortProfileEntry = Static<typeof EffortProfileSchema>;

// ---- upstreams -----------------------------------------------------------------------------

/** `simulator` (or `simulator/<path>`) = the in-process upstream simulator, substituted at start-up. */
const BaseUrl = Type.String({ pattern: '^(simulator(/.*)?|https?://[^\\s]+)$' });

const common = {
  /** Checked against the credentials' AUTH_SCHEMAS separately (absent: no authentication). */
  auth: Type.Optional(Type.Unknown()),
  timeoutMs: Type.Optional(Type.Integer({ minimum: 1 })),
  /** Flex requests queue upstream for minutes: their own, longer timeout. */
  flexTimeoutMs: Type.Optional(Type.Integer({ minimum: 1 })),
};

const endpoint = <A extends string, F extends TProperties>(adapter: A, fields: F) =>
  Type.Object({ adapter: Type.Literal(adapter), ...common, ...fields }, strict);

const Region = Type.String({ pattern: '^[a-z0-9-]+$', maxLength: 64 });

/**
 * Adapter id -> endpoint schema: the tagged union, validated branch by branch for exact errors.
 * `satisfies` makes the compiler name an adapter id that has no endpoint schema.
 */
export const ENDPOINT_SCHEMAS = {
  openai: endpoint('openai', { baseUrl: Type.Optional(BaseUrl) }),
  'openai-compatible': endpoint('openai-compatible', { baseUrl: BaseUrl }),
  'azure-openai': endpoint('azure-openai', {
    /** `https://<resource>.openai.azure.com/openai`. */
    baseUrl: BaseUrl,
    /** Classic deployments with this `api-version`; absent: the v1 API. */
    apiVersion: Type.Optional(Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}(-preview)?$' })),
    /** Catalog model -> deployment name (deployments.ts); absent: named like the catalog's ids. */
    deployments: Type.Optional(DeploymentsSchema),
    management: Type.Optional(ManagementSchema),
  }),
  anthropic: endpoint('anthropic', { baseUrl: Type.Optional(BaseUrl) }),
  'bedrock-converse': endpoint('bedrock-converse', { region: Region, baseUrl: Type.Optional(BaseUrl) }),
  'vertex-claude': endpoint('vertex-claude', {
    project: Type.String({ minLength: 1, maxLength: 64 }),
    location: Region,
    baseUrl: Type.Optional(BaseUrl),
  }),
  gemini: endpoint('gemini', { baseUrl: Type.Optional(BaseUrl) }),
  'vertex-gemini': endpoint('vertex-gemini', {
    project: Type.String({ minLength: 1, maxLength: 64 }),
    location: Region,
    baseUrl: Type.Optional(BaseUrl),
  }),
} as const satisfies Record<AdapterId, TSchema>;
export type AdapterKey = keyof typeof ENDPOINT_SCHEMAS;
export type EndpointEntry = Static<(typeof ENDPOINT_SCHEMAS)[AdapterKey]>;

/** Per provider: a default endpoint, per-vendor and per-family endpoints (family > vendor > default). */
export const ProviderUpstreamsSchema = Type.Object(
  {
    default: Type.Optional(Type.Unknown()),
    vendors: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    families: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
  },
  strict,
);

export const UpstreamsFileSchema = Type.Object(
  {
    providers: Type.Object(
      Object.fromEntries(PROVIDERS.map((provider) => [provider, Type.Optional(ProviderUpstreamsSchema)])),
      strict,
    ),
  },
  strict,
);

export type UpstreamsFile = Static<typeof UpstreamsFileSchema>;
