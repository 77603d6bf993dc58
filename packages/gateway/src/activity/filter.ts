/**
 * The activity log's filter, as GET query parameters (the page's form and its links, the CSV
 * link): checked with TypeBox, every refusal a sentence naming the field.
 */
import { type Static, Type } from 'typebox';
import { Value } from 'typebox/value';
import { PROVIDERS } from '../contracts.ts';

const DAY = '^\\d{4}-\\d{2}-\\d{2}$';

export const ActivityQuerySchema = Type.Object(
  {
    token: Type.Optional(Type.String({ minLength: 1, maxLength: 100 })),
    user: Type.Optional(Type.Integer({ minimum: 1 })),
    provider: Type.Optional(Type.Enum([...PROVIDERS])),
    model: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })),
    status: Type.Optional(Type.Union([Type.Literal('ok'), Type.Literal('error'), Type.Literal('aborted')])),
    from: Type.Optional(Type.String({ pattern: DAY })),
    to: Type.Optional(Type.String({ pattern: DAY })),
    /** Keyset cursors: the id of the last row of the page before (older) or after (newer). */
    before: Type.Optional(Type.Integer({ minimum: 1 })),
    after: Type.Optional(Type.Integer({ minimum: 1 })),
  },
  { additionalProperties: false },
);

export type ActivityQuery = Static<typeof ActivityQuerySchema>;

/** The filter proper: the query without its cursors. */
export type ActivityFilter = Omit<ActivityQuery, 'before' | 'after'>;

export const FILTER_FIELDS = ['token', 'user', 'provider', 'model', 'status', 'from', 'to'] as const;

const FIELD_TEXT: Record<string, string> = {
  token: 'The token',
  user: 'The user',
  provider: 'The provider',
  model: 'The model',
  status: 'The status',
  from: 'The first day',
  to: 'The last day',
  before: 'The page',
  after: 'The page',
};

export class ActivityQueryError extends Error {}

/** A query string parsed: empty fields (a form's unset choices) count as absent. */
export function parseActivityQuery(raw: unknown): ActivityQuery {
  const given: Record<string, unknown> = {};
  if (raw !== null && typeof raw === 'object')
    for (const [key, value] of Object.entries(raw)) if (value !== '') given[key] = value;
  const converted = Value.Convert(ActivityQuerySchema, given);
  const [error] = Value.Errors(ActivityQuerySchema, converted);
  if (error) {
    const field = error.instancePath.split('/')[1] ?? '';
    const name = FIELD_TEXT[field];
    throw new ActivityQueryError(
      name ? `${name} filter is not valid.` : `The filter has a field it does not know: use the form.`,
    );
  }
  const query = converted as ActivityQuery;
  for (const day of [query.from, query.to])
    if (day !== undefined && !isDay(day))
      throw new ActivityQueryError(`${day} is not a day: write it as YYYY-MM-DD.`);
  if (query.from !== undefined && query.to !== undefined && query.from > query.to)
    throw new ActivityQueryError('The first day comes after the last day.');
  if (query.before !== undefined && query.after !== undefined)
    throw new ActivityQueryError('The page filter is not valid.');
  return query;
}

function isDay(day: string): boolean {
  const time = Date.parse(`${day}T00:00:00.000Z`);
  return !Number.isNaN(time) && new Date(time).toISOString().startsWith(day);
}

/** The filter as a query string (for links), with the extra parameters given. */
export function filterQuery(filter: ActivityFilter, extra: Record<string, number> = {}): string {
  const params = new URLSearchParams();
  for (const field of FILTER_FIELDS) {
    const value = filter[field];
    if (value !== undefined) params.set(field, String(value));
  }
  for (const [key, value] of Object.entries(extra)) params.set(key, String(value));
  const text = params.toString();
  return text === '' ? '' : `?${text}`;
}

/** The first instant of the day after `day` (the `to` bound is inclusive of its whole day). */
export function dayAfter(day: string): string {
  const next = new Date(`${day}T00:00:00.000Z`);
  next.setUTCDate(next.getUTCDate() + 1);
  return next.toISOString();
}
