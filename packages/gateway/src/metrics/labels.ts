/**
 * Bounded label values: every series name times its label values is a series each scrape
 * carries forever, so values a client chooses (model strings, project slugs) are mapped onto
 * sets the operator bounds.
 */
import type { UpstreamFailureKind } from '../contracts.ts';
import type { CatalogModel } from '../routing/catalog.ts';

/** The label of everything beyond a bound: projects past the cap, models outside the catalog. */
export const OTHER = 'other';

/**
 * The first `max` projects seen (by a request or by a scrape of the bucket balances) keep their
 * slug; later ones share `other` until the process restarts. First come rather than busiest:
 * a series that changed its label mid-life would break every rate() over it.
 */
export class ProjectLabels {
  readonly #kept = new Set<string>();
  readonly #max: number;

  constructor(max: number) {
    this.#max = max;
  }

  of(slug: string | undefined): string {
    if (slug === undefined) return OTHER;
    if (this.#kept.has(slug)) return slug;
    if (this.#kept.size >= this.#max) return OTHER;
    this.#kept.add(slug);
    return slug;
  }
}

/**
 * Exact model version (or one of its names) -> the `model` label: the version's undated
 * canonical name (`gpt-5.4` for `gpt-5.4-2026-03-05`), or its id when it has none. Bounded by
 * the catalog; a name it does not know is `other`. (A catalog family such as `gpt` spans
 * versions of different prices, too coarse to read spend by.)
 */
export function modelLabels(models: readonly CatalogModel[]): (model: string) => string {
  const labels = new Map<string, string>();
  for (const model of models) {
    const label = model.versionAliases[0] ?? model.id;
    labels.set(model.id, label);
    for (const alias of model.versionAliases) labels.set(alias, label);
  }
  return (model) => labels.get(model) ?? OTHER;
}

/** How an upstream answered with a failure (UpstreamFailureKind). */
const FAILURE_KINDS: ReadonlySet<string> = new Set<UpstreamFailureKind>([
  'client',
  'server',
  'timeout',
  'connection',
  'rate_limited',
  'auth',
]);

/** Ends that are not the upstream's failure: success, the client leaving, the gateway's own fault. */
const NOT_FAILURES: ReadonlySet<string> = new Set(['pending', 'ok', 'client_left', 'gateway_error']);

/** The `kind` label of an attempt's outcome, or undefined when the upstream did not fail it. */
export function failureKindLabel(outcome: string): string | undefined {
  if (NOT_FAILURES.has(outcome)) return undefined;
  return FAILURE_KINDS.has(outcome) ? outcome : OTHER;
}
