/**
 * The one function from meters to micro-dollars, for the ledger's charge, the cost shown on
 * answers and the budget reservation alike. Token rates are US dollars per million tokens, which
 * is exactly micro-dollars per token; call rates are per thousand calls (x 1,000 = micro-dollars
 * per call). A cost is rounded up once per attempt so the ledger never records less than was
 * spent. Shared by the pipeline (charging) and routing (showing rates), like contracts.ts.
 */
import { METER_REGISTRY, meterClass, METERS, type Meters, meters } from '@app/provider-adapters';
import type { MeterRates, Micros, Price } from './contracts.ts';

/** $/1K calls x 1,000 = micro-dollars per call; $/1M tokens = micro-dollars per token. */
const MICROS_PER_RATE_UNIT = { prompt: 1, generated: 1, count: 1_000 } as const;

/**
 * The cost of an attempt's meters. The prompt size (every `prompt` meter) picks the rates: a
 * prompt larger than a tier's `abovePromptTokens` takes that tier's. A meter the registry does
 * not know, or that has no rate and no fallback, costs nothing here: start-up refuses an offer
 * whose adapter can fill a meter its prices cannot price (upstreams.ts), so none reaches this.
 */
export function costMicros(used: Meters, price: Price): Micros {
  const micros = compiled(ratesFor(price, promptSize(used)));
  let raw = 0;
  for (const name in used) raw += (used[name] ?? 0) * (micros.get(name) ?? 0);
  // Float noise (0.1 + 0.2) must not round a whole number of micros up by one.
  return Math.max(0, Math.ceil(raw - 1e-6));
}

interface CompiledRates {
  /** Micro-dollars per unit of each meter the rates price (own rate or fallback). */
  readonly micros: ReadonlyMap<string, number>;
  readonly dearestPrompt: string;
}

/**
 * Rates resolved once per rates object (the catalog's prices live as long as the process): every
 * charge, answer and reservation prices its meters, and resolving fallbacks and units per meter
 * on each was a measurable share of a request's CPU.
 */
const COMPILED = new WeakMap<MeterRates, CompiledRates>();

function compile(rates: MeterRates): CompiledRates {
  let known = COMPILED.get(rates);
  if (known === undefined) {
    const micros = new Map<string, number>();
    let dearestPrompt: string = METERS.input;
    let highest = microsPerUnit(rates, dearestPrompt);
    for (const name of Object.keys(METER_REGISTRY)) {
      const rate = microsPerUnit(rates, name);
      if (rate !== 0) micros.set(name, rate);
      if (meterClass(name) === 'prompt' && rate > highest) [dearestPrompt, highest] = [name, rate];
    }
    known = { micros, dearestPrompt };
    COMPILED.set(rates, known);
  }
  return known;
}

const compiled = (rates: MeterRates) => compile(rates).micros;

/**
 * The reservation: the worst case of a request through the same function: the whole prompt at
 * the dearest rate a prompt token can be charged (of the tier the estimated prompt size
 * selects; a one-hour cache write costs twice an uncached token on Claude), the most output
 * possible and the most server-side web searches the request may make. Settlement charges what
 * the upstream reported, so the worst case only ever releases money, never finds it missing.
 */
export function reservationMicros(
  promptTokens: number,
  outputTokens: number,
  price: Price,
  webSearches = 0,
): Micros {
  return costMicros(
    meters({
      [compile(ratesFor(price, promptTokens)).dearestPrompt]: promptTokens,
      [METERS.output]: outputTokens,
      [METERS.webSearchCalls]: webSearches,
    }),
    price,
  );
}

/** The prompt meter these rates charge most for (`input` when none is dearer). */
export function dearestPromptMeter(rates: MeterRates): string {
  return compile(rates).dearestPrompt;
}

/** The rate of a meter in micros per unit: its own, else its fallback's; unknown meters 0. */
export function microsPerUnit(rates: MeterRates, name: string): number {
  const info = Object.hasOwn(METER_REGISTRY, name) ? METER_REGISTRY[name] : undefined;
  if (info === undefined) return 0;
  const own = Object.hasOwn(rates, name) ? rates[name] : undefined;
  const rate = own ?? (info.pricedAs !== undefined ? rates[info.pricedAs] : undefined) ?? 0;
  return rate * MICROS_PER_RATE_UNIT[info.class];
}

/** The rates a prompt of this size pays: the last tier it is larger than, else the base. */
export function ratesFor(price: Price, promptTokens: number): MeterRates {
  let rates = price.rates;
  for (const tier of price.byPromptSize) if (promptTokens > tier.abovePromptTokens) rates = tier.rates;
  return rates;
}

function promptSize(used: Meters): number {
  let size = 0;
  for (const name in used) if (meterClass(name) === 'prompt') size += used[name] ?? 0;
  return size;
}
