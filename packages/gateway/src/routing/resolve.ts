/**
 * Model name + X-Gateway-* headers -> RoutePlan. Precedence per dimension: modifier in the name
 * > header > the model's default. A modifier the model (or the explicit provider) cannot use is
 * a 400; a header value that is unknown or unusable is ignored and reported, never an error,
 * because headers are often set once for every model an application calls.
 */
import {
  COMPRESSIONS,
  type Compression,
  EFFORTS,
  type Effort,
  isProviderId,
  type ProviderId,
  type ResolvedOptions,
  type RoutePlan,
  type Tier,
} from '../contracts.ts';
import { gatewayErrors } from '../errors.ts';
import type { Catalog, CatalogModel, Offer } from './catalog.ts';
import {
  type AcceptedWords,
  checkProvider,
  classifyModifiers,
  type Dimension,
  invalidModifier,
  type ModifierChoice,
  modifierWord,
  parseModelName,
} from './model-name.ts';

export type Headers = Readonly<Record<string, string | string[] | undefined>>;

export const OPTION_HEADERS = {
  provider: 'x-gateway-provider',
  effort: 'x-gateway-effort',
  tier: 'x-gateway-service-tier',
  compression: 'x-gateway-compression',
} as const;

/** Values each header knows; anything else is ignored. Header tier `standard` = the default. */
const HEADER_VALUES: Readonly<Record<Dimension, readonly string[]>> = {
  effort: EFFORTS,
  tier: ['standard', 'flex'],
  compression: COMPRESSIONS,
};

/** What a model (or one provider's offer of it) accepts, as option values per dimension. */
interface Acceptance {
  readonly effort: readonly Effort[];
  readonly tier: readonly Tier[];
  readonly compression: readonly Compression[];
}

function acceptance(model: CatalogModel, offer: Offer | undefined): Acceptance {
  return offer
    ? { effort: offer.efforts, tier: offer.tiers, compression: model.compressions }
    : { effort: model.efforts, tier: model.tiers, compression: model.compressions };
}

export function acceptedWords(accepts: Acceptance): AcceptedWords {
  const words = (dimension: Dimension, values: readonly string[]) =>
    values
      .map((value) => modifierWord(dimension, value))
      .filter((word): word is string => word !== undefined);
  return {
    effort: words('effort', accepts.effort),
    tier: words('tier', accepts.tier),
    compression: words('compression', accepts.compression),
  };
}

/** One header value, normalised: repeated headers arrive joined, so they stay unusable. */
function headerValue(headers: Headers, name: string): string | undefined {
  const raw = headers[name];
  const value = Array.isArray(raw) ? raw.join(', ') : raw;
  const trimmed = value?.trim();
  return trimmed === undefined || trimmed === '' ? undefined : trimmed.toLowerCase();
}

/** True when every modifier of the name is accepted by this offer. */
function offerTakes(model: CatalogModel, offer: Offer, choice: ModifierChoice): boolean {
  const accepts = acceptance(model, offer);
  return (
    (choice.effort === undefined || accepts.effort.includes(choice.effort)) &&
    (choice.tier === undefined || accepts.tier.includes(choice.tier)) &&
    (choice.compression === undefined || accepts.compression.includes(choice.compression))
  );
}

/**
 * `@provider` must serve the model (else 404, the name does not exist). The header is weaker:
 * unknown, not serving the model, or unable to honour the name's modifiers (which win over
 * headers) -> ignored and reported.
 */
function explicitProvider(
  model: CatalogModel,
  suffix: ProviderId | undefined,
  choice: ModifierChoice,
  headers: Headers,
  where: { requested: string; ignored: string[] },
): ProviderId | undefined {
  const { requested, ignored } = where;
  if (suffix !== undefined) {
    if (!model.offers.has(suffix))
      throw gatewayErrors.create('model_not_found', { model: requested }, { param: 'model' });
    return suffix;
  }
  const header = headerValue(headers, OPTION_HEADERS.provider);
  if (header === undefined) return undefined;
  const offer = isProviderId(header) ? model.offers.get(header) : undefined;
  if (offer && offerTakes(model, offer, choice)) return offer.provider;
  ignored.push(`provider=${header}`);
  return undefined;
}

function resolveOptions(
  model: CatalogModel,
  offer: Offer | undefined,
  chosen: ReturnType<typeof classifyModifiers>,
  headers: Headers,
  where: { requested: string; ignored: string[] },
): ResolvedOptions {
  const accepts = acceptance(model, offer);
  const defaults: ResolvedOptions = { effort: model.defaultEffort, tier: 'standard', compression: 'off' };
  const options: Record<Dimension, string> = { ...defaults };
  for (const dimension of ['effort', 'tier', 'compression'] as const) {
    const fromName = chosen.choice[dimension];
    const allowed: readonly string[] = accepts[dimension];
    if (fromName !== undefined) {
      if (!allowed.includes(fromName)) {
        const on = offer ? `${model.id} on ${offer.provider}` : model.id;
        const words =
          acceptedWords(accepts)
            [dimension].map((word) => `:${word}`)
            .join(', ') || '(none)';
        throw invalidModifier(
          `Modifier ':${chosen.words[dimension]}' in model '${where.requested}' is not accepted by ${on}. Accepted ${dimension} modifiers: ${words}.`,
        );
      }
      options[dimension] = fromName;
      continue;
    }
    const header = headerValue(headers, OPTION_HEADERS[dimension]);
    if (header === undefined) continue;
    if (HEADER_VALUES[dimension].includes(header) && allowed.includes(header)) options[dimension] = header;
    else where.ignored.push(`${dimension}=${header}`);
  }
  return options as unknown as ResolvedOptions;
}

/** Parses, validates and resolves a model name with its headers. Throws 400/404 AppErrors. */
export function resolvePlan(catalog: Catalog, requested: string, headers: Headers): RoutePlan {
  const parsed = parseModelName(requested);
  const suffix = parsed.provider === undefined ? undefined : checkProvider(parsed.provider);
  const model = catalog.lookup(parsed.base);
  if (!model) throw gatewayErrors.create('model_not_found', { model: parsed.base }, { param: 'model' });
  const chosen = classifyModifiers(parsed, requested, acceptedWords(acceptance(model, undefined)));
  const ignored: string[] = [];
  const provider = explicitProvider(model, suffix, chosen.choice, headers, { requested, ignored });
  const offer = provider === undefined ? undefined : model.offers.get(provider);
  const options = resolveOptions(model, offer, chosen, headers, { requested, ignored });
  return {
    requested,
    model: model.id,
    family: model.family,
    explicitProvider: provider,
    options,
    ignored,
    contextWindow: model.contextWindow,
    maxOutputTokens: model.maxOutputTokens,
  };
}
