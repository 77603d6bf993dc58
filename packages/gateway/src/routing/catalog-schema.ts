/**
 * The two routing data files as TypeBox schemas: `catalog/models.json` (what exists and what it
 * costs) and `catalog/upstreams.*.json` (where each provider is reached). Unknown fields are
 * rejected everywhere so a typo never silently drops a setting.
 */
import { type Static, Type } from 'typebox';
import { COMPRESSIONS, type Compression, EFFORTS, type Effort, PROVIDERS } from '../contracts.ts';

const strict = { additionalProperties: false } as const;

/** Model ids and aliases cannot contain `:` or `@`: the model-name grammar splits on them. */
export const NAME_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._-]*$';
const Name = Type.String({ pattern: NAME_PATTERN, maxLength: 128 });
const IsoDate = Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$' });

// Unsafe only narrows the static type: the runtime schema is the union of literals.
const EffortSchema = Type.Unsafe<Effort>(Type.Union(EFFORTS.map((value) => Type.Literal(value))));
const CompressionSchema = Type.Unsafe<Compression>(
  Type.Union(COMPRESSIONS.map((value) => Type.Literal(value))),
);

const PriceSchema = Type.Object(
  {
    inputPerMTok: Type.Number({ minimum: 0 }),
    cachedInputPerMTok: Type.Number({ minimum: 0 }),
    outputPerMTok: Type.Number({ minimum: 0 }),
  },
  strict,
);

const CapabilitiesSchema = Type.Object(
  { tools: Type.Boolean(), vision: Type.Boolean(), webSearch: Type.Boolean() },
  strict,
);

/** One provider's offer of a model. A tier is offered exactly when it has a price. */
const OfferSchema = Type.Object(
  {
    upstreamModel: Type.String({ minLength: 1, maxLength: 256 }),
    prices: Type.Object({ standard: PriceSchema, flex: Type.Optional(PriceSchema) }, strict),
    /** Restricts the model's efforts on this provider (absent: all of the model's). */
    efforts: Type.Optional(Type.Array(EffortSchema, { minItems: 1 })),
    /** Restricts the model's capabilities on this provider (can only turn them off). */
    capabilities: Type.Optional(Type.Partial(CapabilitiesSchema)),
  },
  strict,
);

const OffersSchema = Type.Object(
  Object.fromEntries(PROVIDERS.map((provider) => [provider, Type.Optional(OfferSchema)])),
  strict,
);

export const ModelSchema = Type.Object(
  {
    id: Name,
    family: Name,
    /** Release date; the newest of a family is what the family's aliases point to. */
    released: IsoDate,
    /** Fixed extra names of this exact version (e.g. the vendor's undated name). */
    aliases: Type.Optional(Type.Array(Name)),
    contextWindow: Type.Integer({ minimum: 1 }),
    maxOutputTokens: Type.Integer({ minimum: 1 }),
    capabilities: CapabilitiesSchema,
    efforts: Type.Array(EffortSchema, { minItems: 1 }),
    defaultEffort: EffortSchema,
    compression: Type.Array(CompressionSchema, { minItems: 1 }),
    providers: OffersSchema,
    /** Where the figures come from; shown in docs, never used by code. */
    source: Type.Optional(Type.String()),
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
  { families: Type.Array(FamilySchema, { minItems: 1 }), models: Type.Array(ModelSchema, { minItems: 1 }) },
  strict,
);

export type CatalogFile = Static<typeof CatalogFileSchema>;
export type ModelEntry = Static<typeof ModelSchema>;
export type OfferEntry = Static<typeof OfferSchema>;
export type Capabilities = Static<typeof CapabilitiesSchema>;

// ---- upstreams -----------------------------------------------------------------------------

/** A secret's location, never its value: `env:NAME` or `path:/run/secrets/file`. */
const SecretLocation = Type.String({ pattern: '^(env:[A-Za-z_][A-Za-z0-9_]*|path:.+)$' });

/** `auth` is a tagged union on `type`, validated branch by branch like the endpoints. */
export const AUTH_SCHEMAS = {
  none: Type.Object({ type: Type.Literal('none') }, strict),
  bearer: Type.Object({ type: Type.Literal('bearer'), token: SecretLocation }, strict),
  header: Type.Object(
    {
      type: Type.Literal('header'),
      name: Type.String({ pattern: '^[A-Za-z0-9-]+$' }),
      value: SecretLocation,
    },
    strict,
  ),
} as const;
export type AuthEntry = Static<(typeof AUTH_SCHEMAS)[keyof typeof AUTH_SCHEMAS]>;

/** Endpoint of the one adapter that exists today; later adapters join the ENDPOINT_SCHEMAS map. */
const OpenAiCompatibleEndpoint = Type.Object(
  {
    adapter: Type.Literal('openai-compatible'),
    /** `simulator` = the in-process upstream simulator (its URL is substituted at start-up). */
    baseUrl: Type.String({ pattern: '^(simulator|https?://.+)$' }),
    /** Checked against AUTH_SCHEMAS separately (absent: no authentication). */
    auth: Type.Optional(Type.Unknown()),
    timeoutMs: Type.Optional(Type.Integer({ minimum: 1 })),
    /** Flex requests queue upstream for minutes: their own, longer timeout. */
    flexTimeoutMs: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  strict,
);

/** Adapter key -> endpoint schema: the tagged union, validated branch by branch for exact errors. */
export const ENDPOINT_SCHEMAS = { 'openai-compatible': OpenAiCompatibleEndpoint } as const;
export type AdapterKey = keyof typeof ENDPOINT_SCHEMAS;
export type EndpointEntry = Static<(typeof ENDPOINT_SCHEMAS)[AdapterKey]>;

/** Per provider: a default endpoint and/or per-family endpoints (family wins). */
export const ProviderUpstreamsSchema = Type.Object(
  {
    default: Type.Optional(Type.Unknown()),
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
