/**
 * Model lifecycle: each version's deprecation and retirement dates as its vendor published them,
 * checked when the catalog is built and precomputed for the request path: the instant of
 * retirement (one number comparison per lookup) and the response headers of a deprecated
 * version (RFC 9745 `Deprecation`, RFC 8594 `Sunset`, a `successor-version` link), serialised once.
 */
import { serializeItem } from 'structured-headers';
import { gatewayErrors } from '../errors.ts';
import type { CatalogFile, ModelEntry } from './catalog-schema.ts';

export interface Lifecycle {
  /** As written in the catalog (ISO 8601). */
  readonly deprecatedAt: string | undefined;
  readonly retiresAt: string | undefined;
  readonly successor: string | undefined;
  /** Unix ms from which the version is retired; Infinity when no retirement is announced. */
  readonly retiredFrom: number;
  /** Sent with every answer the version gives while it still works. */
  readonly headers: Readonly<Record<string, string>>;
}

/** Anything the catalog knows the lifecycle of (CatalogModel). */
interface WithLifecycle {
  readonly id: string;
  readonly lifecycle: Lifecycle | undefined;
}

/**
 * Unix ms of `2026-11-30` (the start of that day, UTC) or `2026-11-30T17:00:00Z`; undefined for
 * a date that does not exist. Round trip: Date.parse rolls 2026-02-30 over to March instead.
 */
export function instantOf(text: string): number | undefined {
  const iso = text.length === 10 ? `${text}T00:00:00Z` : text;
  const ms = Date.parse(iso);
  if (Number.isNaN(ms) || new Date(ms).toISOString() !== iso.replace(/Z$/, '.000Z')) return undefined;
  return ms;
}

export function lifecycleOf(entry: ModelEntry): Lifecycle | undefined {
  const { deprecatedAt, retiresAt, successor } = entry;
  if (deprecatedAt === undefined && retiresAt === undefined) return undefined;
  const headers: Record<string, string> = {};
  const deprecated = deprecatedAt === undefined ? undefined : instantOf(deprecatedAt);
  const retired = retiresAt === undefined ? undefined : instantOf(retiresAt);
  // RFC 9745: a Structured Field Date (`@1790726400`); RFC 8594: an HTTP-date.
  if (deprecated !== undefined) headers.deprecation = serializeItem(new Date(deprecated));
  if (retired !== undefined) headers.sunset = new Date(retired).toUTCString();
  if (successor !== undefined) headers.link = `</v1/models/${successor}>; rel="successor-version"`;
  return Object.freeze({
    deprecatedAt,
    retiresAt,
    successor,
    retiredFrom: retired ?? Number.POSITIVE_INFINITY,
    headers: Object.freeze(headers),
  });
}

/** True when the model is retired now; the clock is only read for a model with a retirement date. */
export function isRetired(model: WithLifecycle, now: () => number): boolean {
  return model.lifecycle !== undefined && now() >= model.lifecycle.retiredFrom;
}

/** 410 model_retired: `name` is what the client sent (an exact id or a version alias). */
export function modelRetired(name: string, model: WithLifecycle) {
  return gatewayErrors.create(
    'model_retired',
    {
      model: name,
      id: model.id,
      retiredOn: model.lifecycle?.retiresAt ?? 'an earlier date',
      successor: model.lifecycle?.successor,
    },
    { param: 'model' },
  );
}

function dateProblems(model: ModelEntry, path: string): string[] {
  const problems: string[] = [];
  const released = instantOf(model.released);
  const deprecated = model.deprecatedAt === undefined ? undefined : instantOf(model.deprecatedAt);
  const retired = model.retiresAt === undefined ? undefined : instantOf(model.retiresAt);
  if (model.deprecatedAt !== undefined && deprecated === undefined)
    problems.push(`${path}.deprecatedAt: not a valid date`);
  if (model.retiresAt !== undefined && retired === undefined)
    problems.push(`${path}.retiresAt: not a valid date`);
  if (released !== undefined && deprecated !== undefined && deprecated < released)
    problems.push(`${path}.deprecatedAt: before the release date ${model.released}`);
  if (deprecated !== undefined && retired !== undefined && retired < deprecated)
    problems.push(`${path}.retiresAt: before deprecatedAt (a version is deprecated before it retires)`);
  return problems;
}

/** The successor is an exact version of the catalog that still works when this one stops. */
function successorProblems(model: ModelEntry, path: string, byId: ReadonlyMap<string, ModelEntry>): string[] {
  const { successor } = model;
  if (successor === undefined)
    return model.retiresAt === undefined
      ? []
      : [`${path}.successor: required with retiresAt (the 410 answer names where to go)`];
  if (model.deprecatedAt === undefined && model.retiresAt === undefined)
    return [`${path}.successor: only with deprecatedAt or retiresAt`];
  if (successor === model.id) return [`${path}.successor: a model cannot succeed itself`];
  const next = byId.get(successor);
  if (!next)
    return [`${path}.successor: '${successor}' is not a model id of the catalog (name an exact version)`];
  const stops = instantOf(model.retiresAt ?? model.deprecatedAt ?? '');
  const nextStops = next.retiresAt === undefined ? undefined : instantOf(next.retiresAt);
  if (stops !== undefined && nextStops !== undefined && nextStops <= stops)
    return [
      `${path}.successor: '${successor}' is itself retired on ${next.retiresAt}, not after ${model.id} (${model.retiresAt ?? model.deprecatedAt}); name a version that outlives it`,
    ];
  return [];
}

/**
 * A family alias names the newest version not yet retired, so it needs a version that never
 * retires: otherwise, from the last retirement on, the alias would name a retired model.
 */
function familyProblems(file: CatalogFile): string[] {
  return file.families.flatMap((family) => {
    const members = file.models.filter((model) => model.family === family.id);
    if (family.aliases.length === 0 || members.length === 0) return [];
    if (members.some((model) => model.retiresAt === undefined)) return [];
    const last = members.map((model) => model.retiresAt ?? '').sort((a, b) => b.localeCompare(a))[0];
    return [
      `families: '${family.id}': every version retires (the last on ${last}), after which its aliases (${family.aliases.join(', ')}) would resolve to a retired model; add a version without retiresAt or remove the aliases`,
    ];
  });
}

export function lifecycleProblems(file: CatalogFile): string[] {
  const byId = new Map(file.models.map((model) => [model.id, model]));
  return [
    ...file.models.flatMap((model, index) => [
      ...dateProblems(model, `models[${index}]`),
      ...successorProblems(model, `models[${index}]`, byId),
    ]),
    ...familyProblems(file),
  ];
}

/** One stretch of time and the model a name resolves to during it (until the instant, exclusive). */
export interface Stretch<M> {
  until: number;
  readonly model: M;
}

/**
 * What a family alias names over time, `members` newest first: the newest version not retired
 * at each instant. Computed once at start-up, so a lookup walks at most a few stretches.
 */
export function familyTimeline<M extends WithLifecycle>(members: readonly M[]): Stretch<M>[] {
  const retiredFrom = (model: M) => model.lifecycle?.retiredFrom ?? Number.POSITIVE_INFINITY;
  const breaks = [...new Set(members.map(retiredFrom).filter(Number.isFinite))].sort((a, b) => a - b);
  const stretches: Stretch<M>[] = [];
  let from = Number.NEGATIVE_INFINITY;
  for (const until of [...breaks, Number.POSITIVE_INFINITY]) {
    // Between two breaks nothing changes: a version is live exactly when it retires after `from`.
    const model = members.find((member) => retiredFrom(member) > from) ?? members[0];
    const last = stretches.at(-1);
    if (model === undefined) break;
    if (last?.model === model) last.until = until;
    else stretches.push({ until, model });
    from = until;
  }
  return stretches;
}
