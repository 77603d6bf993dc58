/**
 * Model name + X-Gateway-* headers -> RoutePlan. Precedence per dimension: modifier in the name
 * > header > the model's default. A modifier the model (or the explicit provider) cannot use is
 * a 400; a header value that is unknown or unusable is ignored and reported, never an error,
 * because headers are often set once for every model an application calls.
 */
import {
  type Compression,
  type Effort,
  isProviderId,
  type ProviderId,
  type ResolvedOptions,
  type RoutePlan,
  type Tier,
} from '../contracts.ts';
import { gatewayErrors } from '../errors.ts';
import type { Catalog, CatalogModel, Offer } from './catalog.ts';
import { isRetired, modelRetired } from './catalog-lifecycle.ts';
import { sessionOf } from './session.ts';
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

/** Base (128) + every modifier once + the longest provider suffix, with room to spare. */
const MAX_NAME_LENGTH = 256;

export type Headers = Readonly<Record<string, string | string[] | undefined>>;

export const OPTION_HEADERS = {
  provider: 'x-gateway-provider',
  effort: 'x-gateway-effort',
  tier: 'x-gateway-service-tier',
  compression: 'x-gateway-compression',
} as const;

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
    if (!model.offers.has(suffix)) {
      const serving = [...model.offers.keys()];
      const detail = `${model.id} is not served by '${suffix}'. Providers serving it: ${serving.join(', ')} (e.g. '${model.id}@${serving[0] ?? suffix}', or no @provider to let the gateway choose).`;
      throw gatewayErrors.create('model_not_found', { model: requested, detail }, { param: 'model' });
    }
    return suffix;
  }
  const header = headerValue(headers, OPTION_HEADERS.provider);
  if (header === undefined) return undefined;
  const offer = isProviderId(header) ? model.offers.get(header) : undefined;
  if (offer && offerTakes(model, offer, choice)) return offer.provider;
  ignored.push(`provider=${header}`);
  return undefined;
}

interface Decision {
  readonly model: CatalogModel;
  readonly offer: Offer | undefined;
  readonly chosen: ReturnType<typeof classifyModifiers>;
  readonly headers: Headers;
  readonly requested: string;
  readonly ignored: string[];
}

/**
 * One dimension: the modifier if the model (or explicit provider) accepts it, else 400; else a
 * usable header value; else the default. `allowed.find` narrows the text to the option type.
 */
function decide<T extends string>(dimension: Dimension, allowed: readonly T[], fallback: T, at: Decision): T {
  const fromName = at.chosen.choice[dimension];
  if (fromName !== undefined) {
    const accepted = allowed.find((value) => value === fromName);
    if (accepted !== undefined) return accepted;
    const on = at.offer ? `${at.model.id} on ${at.offer.provider}` : at.model.id;
    const words = acceptedWords(acceptance(at.model, at.offer))[dimension];
    throw invalidModifier(
      `Modifier ':${at.chosen.words[dimension]}' in model '${at.requested}' is not accepted by ${on}. Accepted ${dimension} modifiers: ${words.map((word) => `:${word}`).join(', ') || '(none)'}.`,
    );
  }
  const header = headerValue(at.headers, OPTION_HEADERS[dimension]);
  if (header === undefined) return fallback;
  // Header words are option values (`off`, `standard`), not modifier words (`nocompress`).
  const usable = allowed.find((value) => value === header);
  if (usable !== undefined) return usable;
  at.ignored.push(`${dimension}=${header}`);
  return fallback;
}

function resolveOptions(at: Decision): ResolvedOptions {
  const accepts = acceptance(at.model, at.offer);
  return {
    effort: decide('effort', accepts.effort, at.model.defaultEffort, at),
    tier: decide('tier', accepts.tier, 'standard', at),
    compression: decide('compression', accepts.compression, 'off', at),
  };
}

/** Parses, validates and resolves a model name with its headers. Throws 400/404/410 AppErrors. */
export function resolvePlan(catalog: Catalog, requested: string, headers: Headers): RoutePlan {
  // Catalog names are at most 128 characters: a longer one cannot exist, and echoing it whole
  // in every error message would let a client inflate responses and logs.
  if (requested.length > MAX_NAME_LENGTH)
    throw gatewayErrors.create(
      'model_not_found',
      { model: `${requested.slice(0, 64)}…` },
      { param: 'model' },
    );
  const parsed = parseModelName(requested);
  const suffix = parsed.provider === undefined ? undefined : checkProvider(parsed.provider);
  const model = catalog.lookup(parsed.base);
  if (!model) throw gatewayErrors.create('model_not_found', { model: parsed.base }, { param: 'model' });
  // A family alias never names a retired version; an exact id or a version alias still can.
  if (isRetired(model, catalog.now)) throw modelRetired(parsed.base, model);
  const chosen = classifyModifiers(parsed, requested, () => acceptedWords(acceptance(model, undefined)));
  const ignored: string[] = [];
  const provider = explicitProvider(model, suffix, chosen.choice, headers, { requested, ignored });
  const offer = provider === undefined ? undefined : model.offers.get(provider);
  const options = resolveOptions({ model, offer, chosen, headers, requested, ignored });
  const session = sessionOf(headers);
  // A refused session id is reported by the header it came in, never echoed.
  if (session && 'refused' in session) ignored.push(`session=${session.refused}`);
  return {
    requested,
    model: model.id,
    kind: model.kind,
    embedding: model.embedding,
    family: model.family,
    vendor: model.vendor,
    explicitProvider: provider,
    options,
    ignored,
    contextWindow: model.contextWindow,
    maxOutputTokens: model.maxOutputTokens,
    lifecycleHeaders: model.lifecycle?.headers,
    session: session && 'session' in session ? session.session : undefined,
  };
}
