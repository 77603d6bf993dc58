/**
 * The model-name grammar `<base>[:<modifier>]...[@<provider>]`, in two steps: `parseModelName`
 * is pure syntax (the provider is split on the LAST `@`, because vendor ids such as
 * `claude-sonnet-4-5@20250929` contain one); `classifyModifiers` maps modifier words to option
 * dimensions and rejects unknown words and two words of one dimension.
 */
import {
  type Compression,
  EFFORTS,
  type Effort,
  isProviderId,
  PROVIDERS,
  type ProviderId,
  type Tier,
} from '../contracts.ts';
import { gatewayErrors } from '../errors.ts';

export interface ParsedName {
  readonly base: string;
  /** Modifier words in the order given, without their colons. */
  readonly modifiers: readonly string[];
  /** The text after the last `@`, when there is one (not yet checked). */
  readonly provider: string | undefined;
}

export function parseModelName(name: string): ParsedName {
  const at = name.lastIndexOf('@');
  const head = at < 0 ? name : name.slice(0, at);
  const [base = '', ...modifiers] = head.split(':');
  return { base, modifiers, provider: at < 0 ? undefined : name.slice(at + 1) };
}

export function formatModelName(parsed: ParsedName): string {
  const modifiers = parsed.modifiers.map((modifier) => `:${modifier}`).join('');
  return `${parsed.base}${modifiers}${parsed.provider === undefined ? '' : `@${parsed.provider}`}`;
}

/** The provider suffix as a ProviderId, or 400 gateway_invalid_provider. */
export function checkProvider(provider: string): ProviderId {
  if (isProviderId(provider)) return provider;
  throw gatewayErrors.create(
    'gateway_invalid_provider',
    { provider, accepted: PROVIDERS },
    { param: 'model' },
  );
}

export type Dimension = 'effort' | 'tier' | 'compression';
export const DIMENSIONS: readonly Dimension[] = ['effort', 'tier', 'compression'];

export interface ModifierChoice {
  readonly effort?: Effort;
  readonly tier?: Tier;
  readonly compression?: Compression;
}

/** Every modifier word and what it sets. `standard` is the default tier, so it has no word. */
export const MODIFIER_WORDS: ReadonlyMap<
  string,
  { dimension: Dimension; value: Effort | Tier | Compression }
> = new Map<string, { dimension: Dimension; value: Effort | Tier | Compression }>([
  ...EFFORTS.map((effort) => [effort, { dimension: 'effort' as const, value: effort }] as const),
  ['flex', { dimension: 'tier', value: 'flex' }],
  ['compact', { dimension: 'compression', value: 'compact' }],
  ['compressed', { dimension: 'compression', value: 'compressed' }],
  ['nocompress', { dimension: 'compression', value: 'off' }],
]);

/** The modifier word for an option value (`off` is written `nocompress`); undefined for `standard`. */
export function modifierWord(dimension: Dimension, value: string): string | undefined {
  if (dimension === 'tier') return value === 'flex' ? 'flex' : undefined;
  if (dimension === 'compression') return value === 'off' ? 'nocompress' : value;
  return value;
}

/** Accepted modifier words per dimension, as listed in error messages and /v1/models. */
export type AcceptedWords = Readonly<Record<Dimension, readonly string[]>>;

export function describeAccepted(accepted: AcceptedWords): string {
  return DIMENSIONS.map((dimension) => {
    const words = accepted[dimension];
    return `${dimension}: ${words.length === 0 ? '(none)' : words.map((word) => `:${word}`).join(', ')}`;
  }).join('; ');
}

/** 400 gateway_invalid_model_modifier with a message that names the modifier and the accepted ones. */
export function invalidModifier(reason: string) {
  return gatewayErrors.create('gateway_invalid_model_modifier', { reason }, { param: 'model' });
}

/**
 * Maps modifier words to options. Throws 400 gateway_invalid_model_modifier naming the word
 * for an unknown word (including an empty one from `::`) or a second word of one dimension.
 * Acceptance by a particular model is checked by the caller, which knows the model.
 */
export function classifyModifiers(
  parsed: ParsedName,
  requested: string,
  /** Only computed when an error message needs it: the request path stays allocation-light. */
  accepted: () => AcceptedWords,
): { choice: ModifierChoice; words: Partial<Record<Dimension, string>> } {
  const choice: { effort?: Effort; tier?: Tier; compression?: Compression } = {};
  const words: Partial<Record<Dimension, string>> = {};
  for (const word of parsed.modifiers) {
    const known = MODIFIER_WORDS.get(word);
    if (!known) {
      throw invalidModifier(
        `Unknown modifier ':${word}' in model '${requested}'. Accepted modifiers: ${describeAccepted(accepted())}.`,
      );
    }
    const previous = words[known.dimension];
    if (previous !== undefined) {
      const acceptedHere = accepted()[known.dimension];
      throw invalidModifier(
        `Modifiers ':${previous}' and ':${word}' in model '${requested}' both set ${known.dimension}; use at most one per dimension. Accepted ${known.dimension} modifiers: ${acceptedHere.map((w) => `:${w}`).join(', ') || '(none)'}.`,
      );
    }
    words[known.dimension] = word;
    Object.assign(choice, { [known.dimension]: known.value });
  }
  return { choice, words };
}
