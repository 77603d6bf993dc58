/**
 * Catalog prices as the cost function reads them (pricing.ts), and the checks that
 * make every charge priceable: prompt-size tiers in ascending order, and every meter an
 * offer's adapter can fill priced by the offer (its own rate or its registry fallback).
 */
import { ADAPTER_TRAITS, type AdapterId, METER_REGISTRY, METERS } from '@app/provider-adapters';
import { type MeterRates, type ModelKind, type Price, TIERS, type Tier } from '../contracts.ts';
import type { PriceEntry } from './catalog-schema.ts';

/** The rates of an entry (or of one of its tiers): its meter fields, nothing else. */
function ratesOf(entry: Readonly<Record<string, unknown>>): Record<string, number> {
  const rates: Record<string, number> = {};
  for (const name of Object.keys(METER_REGISTRY)) {
    const rate = entry[name];
    if (typeof rate === 'number') rates[name] = rate;
  }
  return rates;
}

/** Each tier's rates complete (the base's with the tier's laid over them), for one lookup per meter. */
export function priceOf(entry: PriceEntry): Price {
  const base = ratesOf(entry);
  return {
    rates: base,
    byPromptSize: (entry.byPromptSize ?? []).map((tier) => ({
      abovePromptTokens: tier.abovePromptTokens,
      rates: { ...base, ...ratesOf(tier) },
    })),
  };
}

/** Thresholds must rise: the last tier a prompt is larger than applies. */
export function priceProblems(entry: PriceEntry, path: string): string[] {
  const problems: string[] = [];
  let previous = 0;
  for (const [index, tier] of (entry.byPromptSize ?? []).entries()) {
    if (tier.abovePromptTokens <= previous)
      problems.push(`${path}.byPromptSize[${index}].abovePromptTokens: must be larger than the one before`);
    previous = tier.abovePromptTokens;
  }
  return problems;
}

function priced(rates: MeterRates, name: string): boolean {
  const fallback = METER_REGISTRY[name]?.pricedAs;
  return Object.hasOwn(rates, name) || (fallback !== undefined && Object.hasOwn(rates, fallback));
}

/**
 * The meters `adapter` can fill that a price of the offer cannot price: a charge for them
 * would silently be 0, so the offer is refused until the catalog names a rate (0 included).
 */
export function unpricedMeters(
  adapter: AdapterId,
  prices: Readonly<Partial<Record<Tier, Price>>>,
  kind: ModelKind = 'chat',
): string[] {
  // An embeddings call reports its input only, whatever else the adapter's chat answers report.
  const reported = kind === 'embedding' ? [METERS.input] : ADAPTER_TRAITS[adapter].meters;
  const missing = new Set<string>();
  for (const tier of TIERS) {
    const price = prices[tier];
    if (price === undefined) continue;
    for (const name of reported) if (!priced(price.rates, name)) missing.add(`${tier} ${name}`);
  }
  return [...missing];
}
