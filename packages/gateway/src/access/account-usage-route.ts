/**
 * GET /v1/account/usage: the caller's own spend in the token's project, per day and model. A
 * member sees what they spent (every token of theirs, or with `token=current` the one sent),
 * never another member's: project-wide figures are the operator's (gatewayctl usage).
 */
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import { type Static, Type } from 'typebox';
import type { AccessControl } from '../contracts.ts';
import type { GatewayDatabase } from '../db/schema.ts';
import { gatewayErrors } from '../errors.ts';
import { AUTHENTICATED_ROUTE_ERRORS, errorResponses } from '../openapi-errors.ts';
import { MetersSchema } from './meters-schema.ts';
import { PeriodError, parsePeriod, periodOf } from './usage-period.ts';
import { totalOf, type UsageFigures, usageRows } from './usage-report.ts';

/** The default period, in calendar days up to and including today. */
export const DEFAULT_USAGE_DAYS = 30;
/** The longest period one request may ask for: a polling script stays one bounded query. */
export const MAX_USAGE_DAYS = 366;
const DAY_MS = 86_400_000;

const bound = (what: string) =>
  Type.String({
    description: `${what}: a UTC date (YYYY-MM-DD) or an ISO timestamp (without offset: UTC)`,
    examples: ['2026-11-01', '2026-11-01T09:30:00Z'],
  });

export const UsageQuerySchema = Type.Object({
  since: Type.Optional(
    bound(
      `Start, inclusive (default: the ${DEFAULT_USAGE_DAYS} days up to until, its day included, from 00:00 UTC)`,
    ),
  ),
  until: Type.Optional(bound('End, exclusive; a date includes that whole day (default: now)')),
  token: Type.Optional(
    Type.Literal('current', { description: 'Only the token sent (default: every token of the caller)' }),
  ),
});

const Figures = {
  requests: Type.Integer({
    description:
      "Requests that reserved budget (failed ones included); a failed-over request counts once, in the entry of its first attempt, while every attempt's tokens and cost count",
  }),
  input_tokens: Type.Integer({ description: 'Prompt tokens, cached reads included' }),
  cached_input_tokens: Type.Integer({
    description: 'Of input_tokens, read from the prompt cache (the cached_input meter)',
  }),
  output_tokens: Type.Integer({ description: 'Generated tokens, reasoning included' }),
  cost: Type.Number({ description: 'Settled cost, US dollars' }),
  meters: MetersSchema,
};

export const AccountUsageSchema = Type.Object({
  object: Type.Literal('account.usage'),
  user: Type.Object({ id: Type.Integer(), email: Type.String() }),
  project: Type.Object({ id: Type.Integer(), slug: Type.String() }),
  token: Type.Union([Type.String(), Type.Null()], {
    description: 'The token counted with token=current (its id), null when every token of the user is',
  }),
  since: Type.String({ format: 'date-time' }),
  until: Type.String({ format: 'date-time', description: 'Exclusive' }),
  totals: Type.Object(Figures),
  data: Type.Array(
    Type.Object({
      day: Type.String({ format: 'date', description: 'UTC day' }),
      provider: Type.String({ description: 'The provider bucket charged' }),
      model: Type.Union([Type.String(), Type.Null()], { description: 'The model version that answered' }),
      ...Figures,
    }),
    { description: 'One entry per day, provider and model with requests, by day, then provider and model' },
  ),
});

type Query = Static<typeof UsageQuerySchema>;

const figures = (row: UsageFigures) => ({
  requests: row.requests,
  input_tokens: row.inputTokens,
  cached_input_tokens: row.cachedInputTokens,
  output_tokens: row.outputTokens,
  cost: row.costMicros / 1_000_000,
  meters: row.meters,
});

/** The period asked for, defaulted and bounded; a 400 in the gateway's format when wrong. */
function requestedPeriod(query: Query, now: number): { since: string; until: string } {
  try {
    const asked = parsePeriod(query);
    const untilMs = asked.untilMs ?? now;
    // The last day of the period is the one `until` falls in (a date's own day: its end is excluded).
    const lastDay = untilMs - 1 - ((untilMs - 1) % DAY_MS);
    const sinceMs = asked.sinceMs ?? lastDay - (DEFAULT_USAGE_DAYS - 1) * DAY_MS;
    if (sinceMs > untilMs) throw new PeriodError(`since (${query.since}) is after until (now)`);
    if (untilMs - sinceMs > MAX_USAGE_DAYS * DAY_MS)
      throw new PeriodError(`the period is longer than ${MAX_USAGE_DAYS} days; ask for it in parts`);
    const period = periodOf(sinceMs, untilMs);
    return { since: period.since ?? '', until: period.until ?? '' };
  } catch (error) {
    if (!(error instanceof PeriodError)) throw error;
    throw gatewayErrors.create('invalid_request', { reason: error.message });
  }
}

export function registerAccountUsage(
  app: FastifyInstance,
  deps: { control: AccessControl; db: Kysely<GatewayDatabase> },
): void {
  app.get(
    '/v1/account/usage',
    {
      schema: {
        tags: ['account'],
        summary: "The caller's own spend in the token's project, per day and model",
        description:
          "Counts the requests of the token's user in the token's project (every token of theirs, or only the one sent with `token=current`), never other members'. Default period: the last 30 days (today included), or the 30 days up to `until`; at most 366 days. Amounts are US dollars.",
        security: [{ bearerAuth: [] }],
        querystring: UsageQuerySchema,
        response: { 200: AccountUsageSchema, ...errorResponses(AUTHENTICATED_ROUTE_ERRORS) },
      },
    },
    async (request): Promise<Static<typeof AccountUsageSchema>> => {
      const principal = await deps.control.authenticate(request);
      const query = request.query as Query;
      const period = requestedPeriod(query, Date.now());
      const current = query.token === 'current';
      const filter = {
        projectId: principal.projectId,
        userId: principal.userId,
        ...(current ? { tokenJti: principal.tokenId } : {}),
        ...period,
      };
      const rows = await usageRows(deps.db, filter, ['day', 'model']);
      return {
        object: 'account.usage',
        user: { id: principal.userId, email: principal.email },
        project: { id: principal.projectId, slug: principal.projectSlug },
        token: current ? principal.tokenId : null,
        ...period,
        totals: figures(totalOf(rows)),
        data: rows.map((row) => ({
          day: row.day ?? '',
          provider: row.provider ?? '',
          model: row.model ?? null,
          ...figures(row),
        })),
      };
    },
  );
}
