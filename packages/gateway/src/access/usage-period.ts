/**
 * The period of a usage report, as gatewayctl (`--since`/`--until`) and GET /v1/account/usage
 * (`since`/`until`) accept it: a UTC date `YYYY-MM-DD` or an ISO timestamp. `since` is
 * inclusive; `until` is exclusive as a timestamp, and a date `until` includes that whole day, so
 * `--since 2026-11-01 --until 2026-11-30` is the month of November. No imports: gatewayctl
 * checks its arguments before it loads anything heavy.
 */

/** How a usage report can be grouped (gatewayctl usage --by); here, so the CLI checks it unloaded. */
export const USAGE_GROUPINGS = ['day', 'model', 'token', 'user'] as const;
export type UsageGrouping = (typeof USAGE_GROUPINGS)[number];

/** A bound that is not a date or timestamp, or a period that ends before it starts. */
export class PeriodError extends Error {}

export interface Period {
  /** Inclusive lower bound, an ISO instant as the usage table stores `created_at`; none: from the start. */
  readonly since: string | undefined;
  /** Exclusive upper bound; none: up to now. */
  readonly until: string | undefined;
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const TIMESTAMP = /^(\d{4}-\d{2}-\d{2})T([01]\d|2[0-3]):[0-5]\d(:[0-5]\d(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})?$/i;
const DAY_MS = 86_400_000;

/** Midnight UTC of a real calendar date (Date.parse would turn 2026-02-30 into March 2nd). */
function dateStart(text: string): number | undefined {
  if (!DATE.test(text)) return undefined;
  const start = Date.parse(`${text}T00:00:00Z`);
  return Number.isNaN(start) || new Date(start).toISOString().slice(0, 10) !== text ? undefined : start;
}

/** Where a bound starts (for a date, its midnight) and, as `until`, the instant it excludes. */
function bound(name: string, text: string): { readonly at: number; readonly end: number } {
  const day = dateStart(text);
  if (day !== undefined) return { at: day, end: day + DAY_MS };
  const match = TIMESTAMP.exec(text);
  // A timestamp without an offset is UTC, as the dates are (Date.parse would read local time).
  const at =
    match && dateStart(match[1] ?? '') !== undefined ? Date.parse(match[5] ? text : `${text}Z`) : NaN;
  if (Number.isNaN(at))
    throw new PeriodError(
      `${name} must be a UTC date (YYYY-MM-DD) or an ISO timestamp such as 2026-11-01T09:30:00Z, got '${text}'`,
    );
  return { at, end: at };
}

/**
 * Parses both bounds; `prefix` names them as the caller spells them (`--` for gatewayctl).
 * Throws PeriodError when one is malformed or since is after until (the same date is one day).
 */
export function parsePeriod(
  input: { readonly since?: string | undefined; readonly until?: string | undefined },
  prefix = '',
): { readonly sinceMs: number | undefined; readonly untilMs: number | undefined } {
  const since = input.since === undefined ? undefined : bound(`${prefix}since`, input.since);
  const until = input.until === undefined ? undefined : bound(`${prefix}until`, input.until);
  if (since !== undefined && until !== undefined && since.at > until.at)
    throw new PeriodError(`${prefix}since (${input.since}) is after ${prefix}until (${input.until})`);
  return { sinceMs: since?.at, untilMs: until?.end };
}

/** Milliseconds as the bound the usage table compares `created_at` with. */
export function periodOf(sinceMs: number | undefined, untilMs: number | undefined): Period {
  const iso = (ms: number | undefined) => (ms === undefined ? undefined : new Date(ms).toISOString());
  return { since: iso(sinceMs), until: iso(untilMs) };
}
