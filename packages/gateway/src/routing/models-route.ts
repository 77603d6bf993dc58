/**
 * GET /v1/models, computed live per request: OpenAI's list shape (so `openai` SDKs'
 * `models.list()` works unchanged) plus the gateway's fields. Only models with at least one
 * provider this account can use now (serves it, bucket has budget, circuit not open) and not
 * retired appear; aliases are entries of their own (`alias_of` names the exact version), like
 * OpenAI's list. Deprecation and retirement dates are listed while a model still works.
 */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { METERS } from '@app/provider-adapters';
import type { FastifyPluginAsync } from 'fastify';
import { type Static, Type } from 'typebox';
import {
  type AccessControl,
  type BucketBalance,
  type Ledger,
  type Price,
  PROVIDERS,
  type ProviderId,
} from '../contracts.ts';
import { bucketsText, gatewayErrors } from '../errors.ts';
import { microsPerUnit } from '../pricing.ts';
import { AUTHENTICATED_ROUTE_ERRORS, errorResponses } from '../openapi-errors.ts';
import type { CircuitBreakers } from './breaker.ts';
import type { Catalog, CatalogModel } from './catalog.ts';
import { isRetired, modelRetired } from './catalog-lifecycle.ts';
import type { AcceptedWords } from './model-name.ts';
import { acceptedWords } from './resolve.ts';
import { type Candidate, candidatesOf, hasBudget } from './router.ts';
import type { Upstreams } from './upstreams.ts';

const Words = Type.Array(Type.String());
const ModifiersSchema = Type.Object(
  { effort: Words, tier: Words, compression: Words },
  { description: 'Accepted modifier words per dimension (written `:word` after the model name)' },
);
const MeterRatesSchema = Type.Record(Type.String(), Type.Number(), {
  description:
    'Rate per usage meter (`input`, `cached_input`, `cache_write_5m`, `cache_write_1h`, `output`, `reasoning`: US dollars per million tokens; `web_search_calls`: per thousand calls). A meter not listed is charged as its fallback (`reasoning` as `output`, `cache_write_5m` as `input`)',
});
const PriceSchema = Type.Object(
  {
    input_per_mtok: Type.Number(),
    cached_input_per_mtok: Type.Number(),
    output_per_mtok: Type.Number(),
    meters: MeterRatesSchema,
    by_prompt_size: Type.Optional(
      Type.Array(
        Type.Object({
          above_prompt_tokens: Type.Integer({
            description: 'These rates apply to a prompt larger than this many tokens',
          }),
          meters: MeterRatesSchema,
        }),
      ),
    ),
  },
  { description: 'US dollars per million tokens (the base rates), and the rates of every meter' },
);
const CapabilitiesSchema = Type.Object({
  tools: Type.Boolean(),
  vision: Type.Boolean(),
  web_search: Type.Boolean(),
});

const ProviderSchema = Type.Object({
  id: Type.String({ description: 'Provider id; append `@id` to the model name to choose it' }),
  simulated: Type.Boolean({ description: 'Served by the bundled upstream simulator, not a real model' }),
  modifiers: ModifiersSchema,
  capabilities: CapabilitiesSchema,
  prices: Type.Object({ standard: PriceSchema, flex: Type.Optional(PriceSchema) }),
});

const EmbeddingSchema = Type.Object(
  {
    dimensions: Type.Integer({ description: 'The full vector length, given when `dimensions` is not asked' }),
    min_dimensions: Type.Optional(
      Type.Integer({ description: 'Shorter vectors of any length from this one up may be asked' }),
    ),
    dimension_values: Type.Optional(
      Type.Array(Type.Integer(), { description: 'The only lengths `dimensions` may ask' }),
    ),
    max_inputs: Type.Integer({ description: 'Inputs one request may carry' }),
    max_input_tokens: Type.Integer({ description: 'Tokens one input may be' }),
  },
  { description: 'Embedding models only: their vectors and input limits' },
);

const ModelSchema = Type.Object({
  id: Type.String(),
  object: Type.Literal('model'),
  kind: Type.Optional(
    Type.Literal('embedding', {
      description: 'Present on embedding models (served by POST /v1/embeddings); absent on chat models',
    }),
  ),
  embedding: Type.Optional(EmbeddingSchema),
  created: Type.Integer({ description: 'Release date, Unix seconds' }),
  owned_by: Type.String(),
  alias_of: Type.Optional(
    Type.String({ description: 'Present on alias entries: the exact version it resolves to now' }),
  ),
  aliases: Type.Array(Type.String(), { description: 'Names that resolve to this exact version now' }),
  family: Type.String(),
  simulated: Type.Boolean(),
  context_window: Type.Integer(),
  max_output_tokens: Type.Integer(),
  capabilities: CapabilitiesSchema,
  modifiers: ModifiersSchema,
  defaults: Type.Object({ effort: Type.String(), tier: Type.String(), compression: Type.String() }),
  deprecated_at: Type.Union([Type.String(), Type.Null()], {
    description: 'When the vendor deprecated (or will deprecate) this version, ISO 8601; null: not announced',
  }),
  retires_at: Type.Union([Type.String(), Type.Null()], {
    description: 'From when this version answers 410 `model_retired`, ISO 8601; null: not announced',
  }),
  successor: Type.Union([Type.String(), Type.Null()], {
    description: 'The version to move to before `retires_at`; null when none is named',
  }),
  providers: Type.Array(ProviderSchema, { description: 'Providers this account can use for the model now' }),
});

export const ModelListSchema = Type.Object({
  object: Type.Literal('list'),
  data: Type.Array(ModelSchema),
  notice: Type.Optional(
    Type.String({
      description: 'Present when `data` is empty: why no model is usable now (budgets, circuits)',
    }),
  ),
});
type ModelList = Static<typeof ModelListSchema>;
type ModelObject = Static<typeof ModelSchema>;

export interface ModelsRouteDeps {
  readonly catalog: Catalog;
  readonly upstreams: Upstreams;
  readonly breakers: CircuitBreakers;
  readonly access: AccessControl;
  readonly ledger: Pick<Ledger, 'balances'>;
}

/**
 * The three per-token fields clients already read (base rates, the registry's fallback where a
 * rate is absent), plus every meter's rate and the prompt-size tiers.
 */
function price(p: Price) {
  const perMillion = (meter: string) => microsPerUnit(p.rates, meter);
  return {
    input_per_mtok: perMillion(METERS.input),
    cached_input_per_mtok: perMillion(METERS.cachedInput),
    output_per_mtok: perMillion(METERS.output),
    meters: { ...p.rates },
    ...(p.byPromptSize.length > 0
      ? {
          by_prompt_size: p.byPromptSize.map((tier) => ({
            above_prompt_tokens: tier.abovePromptTokens,
            meters: { ...tier.rates },
          })),
        }
      : {}),
  };
}

function words(accepted: AcceptedWords) {
  return { effort: [...accepted.effort], tier: [...accepted.tier], compression: [...accepted.compression] };
}

/** The words of `canonical` (the model's, in their natural order) that any list contains. */
function union(canonical: readonly string[], lists: readonly (readonly string[])[]): string[] {
  const present = new Set(lists.flat());
  return canonical.filter((word) => present.has(word));
}

function modelObject(
  model: CatalogModel,
  aliases: readonly string[],
  usable: readonly Candidate[],
): ModelObject {
  const providers = usable.map(({ offer, endpoint }) => ({
    id: offer.provider,
    simulated: endpoint.simulated,
    modifiers: words(
      acceptedWords({ effort: offer.efforts, tier: offer.tiers, compression: model.compressions }),
    ),
    capabilities: {
      tools: offer.capabilities.tools,
      vision: offer.capabilities.vision,
      web_search: offer.capabilities.webSearch,
    },
    prices: {
      standard: price(offer.prices.standard),
      ...(offer.prices.flex ? { flex: price(offer.prices.flex) } : {}),
    },
  }));
  const all = acceptedWords({ effort: model.efforts, tier: model.tiers, compression: model.compressions });
  return {
    id: model.id,
    object: 'model',
    ...embeddingFields(model),
    created: model.created,
    owned_by: model.vendor,
    aliases: [...aliases],
    family: model.family,
    simulated: providers.every((p) => p.simulated),
    context_window: model.contextWindow,
    max_output_tokens: model.maxOutputTokens,
    capabilities: {
      tools: providers.some((p) => p.capabilities.tools),
      vision: providers.some((p) => p.capabilities.vision),
      web_search: providers.some((p) => p.capabilities.web_search),
    },
    modifiers: {
      effort: union(
        all.effort,
        providers.map((p) => p.modifiers.effort),
      ),
      tier: union(
        all.tier,
        providers.map((p) => p.modifiers.tier),
      ),
      compression: union(
        all.compression,
        providers.map((p) => p.modifiers.compression),
      ),
    },
    defaults: { effort: model.defaultEffort, tier: 'standard', compression: 'off' },
    deprecated_at: model.lifecycle?.deprecatedAt ?? null,
    retires_at: model.lifecycle?.retiresAt ?? null,
    successor: model.lifecycle?.successor ?? null,
    providers,
  };
}

/** `kind` and `embedding` of an embedding model; nothing for a chat model (its entry is unchanged). */
function embeddingFields(model: CatalogModel): Pick<ModelObject, 'kind' | 'embedding'> {
  const spec = model.embedding;
  if (model.kind !== 'embedding' || spec === undefined) return {};
  return {
    kind: 'embedding',
    embedding: {
      dimensions: spec.dimensions,
      ...(spec.minDimensions === undefined ? {} : { min_dimensions: spec.minDimensions }),
      ...(spec.dimensionValues === undefined ? {} : { dimension_values: [...spec.dimensionValues] }),
      max_inputs: spec.maxInputs,
      max_input_tokens: spec.maxInputTokens,
    },
  };
}

type Balances = Partial<Record<ProviderId, BucketBalance>>;

/**
 * The entry of one exact model for these balances at `at`, or undefined when no provider is
 * usable now. A retired model is left out: its names can no longer be sent.
 */
function usableEntry(
  deps: Pick<ModelsRouteDeps, 'catalog' | 'upstreams' | 'breakers'>,
  model: CatalogModel,
  balances: Balances,
  at: number,
): ModelObject | undefined {
  if (isRetired(model, () => at)) return undefined;
  const usable = candidatesOf(model, deps.upstreams).filter(
    (c) => hasBudget(balances[c.offer.provider]) && deps.breakers.state(c.endpoint.key) !== 'open',
  );
  return usable.length === 0 ? undefined : modelObject(model, deps.catalog.aliasesOf(model, at), usable);
}

/** The list for one project's balances: exact versions, each followed by its alias entries. */
export function listModels(
  deps: Pick<ModelsRouteDeps, 'catalog' | 'upstreams' | 'breakers'>,
  balances: Balances,
): ModelList {
  const at = deps.catalog.now();
  const data: ModelObject[] = [];
  for (const model of deps.catalog.models) {
    const entry = usableEntry(deps, model, balances, at);
    if (!entry) continue;
    data.push(entry);
    for (const alias of entry.aliases) data.push({ ...entry, id: alias, alias_of: model.id });
  }
  return { object: 'list', data };
}

/** Why an empty list is empty, so a caller is not left guessing (OpenAI's SDKs ignore the field). */
export function emptyListNotice(project: string, balances: Balances): string {
  if (!PROVIDERS.some((provider) => hasBudget(balances[provider]))) {
    const buckets = PROVIDERS.map((provider) => ({
      provider,
      balance: balances[provider] ?? ('none' as const),
    }));
    return `No model is usable: project '${project}' has no budget left on any provider (${bucketsText(buckets)}). Ask a project admin to raise an allocation.`;
  }
  return 'No model is usable right now: every provider with budget left is failing (circuit open) or not configured on this gateway. Retry later.';
}

/**
 * One entry by exact id or alias (as listed), or undefined: unknown or not usable now. A retired
 * model's name is a 410 `model_retired` naming the successor, as a model call would answer.
 */
export function retrieveModel(
  deps: Pick<ModelsRouteDeps, 'catalog' | 'upstreams' | 'breakers'>,
  name: string,
  balances: Balances,
): ModelObject | undefined {
  const at = deps.catalog.now();
  const model = deps.catalog.lookup(name, at);
  if (model && isRetired(model, () => at)) throw modelRetired(name, model);
  const entry = model ? usableEntry(deps, model, balances, at) : undefined;
  if (!model || !entry) return undefined;
  return name === model.id ? entry : { ...entry, id: name, alias_of: model.id };
}

export function modelsRoutes(deps: ModelsRouteDeps): FastifyPluginAsync {
  return async (plain) => {
    // The type provider types `request.params` from the TypeBox schema (no cast).
    const app = plain.withTypeProvider<TypeBoxTypeProvider>();
    app.get(
      '/v1/models',
      {
        schema: {
          summary: 'Models this account can use now',
          description:
            'OpenAI list shape plus aliases, usable providers, accepted modifiers, context window and prices. Computed live. A Gemini client (a request with `x-goog-api-key`, `x-goog-api-client` or `?key=`) gets the Gemini list of `GET /v1beta/models` here instead.',
          tags: ['models'],
          security: [{ bearerAuth: [] }],
          response: { 200: ModelListSchema, ...errorResponses(AUTHENTICATED_ROUTE_ERRORS) },
        },
      },
      async (request) => {
        const principal = await deps.access.authenticate(request);
        const balances = await deps.ledger.balances(principal.projectId);
        const list = listModels(deps, balances);
        if (list.data.length > 0) return list;
        return { ...list, notice: emptyListNotice(principal.projectSlug, balances) };
      },
    );
    app.get(
      '/v1/models/:model',
      {
        schema: {
          summary: 'One model (exact version or alias) if this account can use it now',
          description:
            'The entry `GET /v1/models` would list for this name; 410 `model_retired` for a retired version, 404 `model_not_found` otherwise. A Gemini client gets the answer of `GET /v1beta/models/{model}` here instead.',
          tags: ['models'],
          security: [{ bearerAuth: [] }],
          params: Type.Object({
            model: Type.String({
              maxLength: 256,
              examples: ['gpt-5.4-mini'],
              description: 'Exact version or alias',
            }),
          }),
          response: {
            200: ModelSchema,
            ...errorResponses([...AUTHENTICATED_ROUTE_ERRORS, 'model_not_found', 'model_retired']),
          },
        },
      },
      async (request) => {
        const principal = await deps.access.authenticate(request);
        const { model } = request.params;
        const entry = retrieveModel(deps, model, await deps.ledger.balances(principal.projectId));
        if (!entry) throw gatewayErrors.create('model_not_found', { model }, { param: 'model' });
        return entry;
      },
    );
  };
}
