/**
 * Usage as named meters: what a call consumed, as disjoint quantities that the catalog prices
 * one by one (cost = sum of quantity x the meter's rate). A meter is a name, so a new billable
 * dimension is a catalog price plus the adapter line that fills it, never a new column or field.
 *
 * The meters are disjoint: a prompt token is counted in exactly one of `input`, `cached_input`,
 * `cache_write_5m` and `cache_write_1h`; a generated token in exactly one of `output` and
 * `reasoning`. Absent means 0. Quantities are non-negative integers.
 */
import type { Usage } from './usage.ts';

/** The meters known today; adapters may fill others (`image_input`, `audio_input`, ...). */
export const METERS = Object.freeze({
  /** Prompt tokens neither read from nor written to a prompt cache. */
  input: 'input',
  cachedInput: 'cached_input',
  cacheWrite5m: 'cache_write_5m',
  cacheWrite1h: 'cache_write_1h',
  /** Generated tokens other than those reported as reasoning. */
  output: 'output',
  reasoning: 'reasoning',
  webSearchCalls: 'web_search_calls',
} as const);

export type Meters = Readonly<Record<string, number>>;

/**
 * What a meter counts, which decides its unit and the total it adds to: `prompt` tokens (priced
 * per million, part of the prompt size and of every API's prompt/input count), `generated`
 * tokens (per million, part of the completion/output count) or `count` of calls (per thousand).
 */
export type MeterClass = 'prompt' | 'generated' | 'count';

export interface MeterInfo {
  readonly class: MeterClass;
  /**
   * The meter whose rate applies when a price has none for this one: only where that is the
   * upstream's own rule or today's charge (reasoning is billed as output; a cache write of unknown
   * price as input). A meter without a fallback must be priced wherever it can be filled.
   */
  readonly pricedAs?: string;
}

/** The registry: one line per meter. A new meter is a line here, a catalog rate and an adapter line. */
export const METER_REGISTRY: Readonly<Record<string, MeterInfo>> = Object.freeze({
  [METERS.input]: { class: 'prompt' },
  [METERS.cachedInput]: { class: 'prompt' },
  [METERS.cacheWrite5m]: { class: 'prompt', pricedAs: METERS.input },
  [METERS.cacheWrite1h]: { class: 'prompt' },
  [METERS.output]: { class: 'generated' },
  [METERS.reasoning]: { class: 'generated', pricedAs: METERS.output },
  [METERS.webSearchCalls]: { class: 'count' },
});

/** Class by name, for the per-usage lookups (a Map: no prototype names, one hash lookup). */
const CLASSES: ReadonlyMap<string, MeterClass> = new Map(
  Object.entries(METER_REGISTRY).map(([name, info]) => [name, info.class]),
);

/**
 * Registry meters of each class beyond the seven built in (which `usageFromMeters` reads by
 * name, the hot path): a meter added to the registry joins its class's total through these.
 */
const BUILT_IN: ReadonlySet<string> = new Set(Object.values(METERS));
const beyond = (kind: MeterClass) =>
  Object.keys(METER_REGISTRY).filter((name) => !BUILT_IN.has(name) && METER_REGISTRY[name]?.class === kind);
export const ADDED_PROMPT_METERS: readonly string[] = Object.freeze(beyond('prompt'));
export const ADDED_GENERATED_METERS: readonly string[] = Object.freeze(beyond('generated'));

/** The class of a meter; undefined for a name the registry does not know. */
export function meterClass(name: string): MeterClass | undefined {
  return CLASSES.get(name);
}

/** The meters of a usage (see Usage: the adapters fill them, every total derives from them). */
export function metersOf(usage: Usage): Meters {
  return usage.meters;
}

/**
 * Meters from quantities an adapter read, in the order given (pricing sums in this order). Zeros
 * are left out: absent means 0, and a usage without cache activity carries no cache meters.
 */
export function meters(quantities: Readonly<Record<string, number>>): Meters {
  let zeros = false;
  for (const name in quantities) if (!((quantities[name] ?? 0) > 0)) zeros = true;
  if (!zeros) return quantities;
  const out: Record<string, number> = {};
  for (const name in quantities) {
    const quantity = quantities[name] ?? 0;
    if (quantity > 0) out[name] = quantity;
  }
  return out;
}

/** What an API reports of a prompt beside its uncached input (Anthropic's Messages, Bedrock's Converse). */
export interface SideBySidePrompt {
  readonly input: number;
  readonly cachedRead: number;
  /** The writes of every duration, as the API totals them. */
  readonly written: number;
  /** The writes the API places by duration (absent from older API versions). */
  readonly oneHour: number;
  readonly fiveMinutes: number;
}

/**
 * Puts the prompt meters of an API that reports uncached input, cache reads and cache writes
 * side by side, leaving zeros out. The writes are the larger of the total and the placed ones;
 * writes not placed in the one-hour cache are 5-minute writes, the default duration.
 */
export function putSideBySidePrompt(out: Record<string, number>, prompt: SideBySidePrompt): void {
  const written = Math.max(prompt.written, prompt.oneHour + prompt.fiveMinutes);
  if (prompt.input > 0) out[METERS.input] = prompt.input;
  if (prompt.cachedRead > 0) out[METERS.cachedInput] = prompt.cachedRead;
  if (written - prompt.oneHour > 0) out[METERS.cacheWrite5m] = written - prompt.oneHour;
  if (prompt.oneHour > 0) out[METERS.cacheWrite1h] = prompt.oneHour;
}
