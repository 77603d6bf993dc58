/** What a project may spend and how fast: allocations per provider bucket, rate limits, usage. */
import { Type } from 'typebox';
import { projectRateLimits, projectUsage, setAllocation, setRateLimits } from '../access/admin.ts';
import { type AdminApp, type AdminContext, secured } from './context.ts';
import { adminErrors, BODY_ERRORS } from './errors.ts';
import {
  AllocationSchema,
  BucketSchema,
  ListOf,
  RateLimitsSchema,
  bucketJson,
  rateLimitsJson,
} from './schemas.ts';
import { SlugParams } from './users-projects.ts';

const AllocationParams = Type.Object({
  ...SlugParams.properties,
  provider: Type.String({
    maxLength: 100,
    description: 'developer, cloud_a, cloud_b or cloud_c',
    examples: ['cloud_b'],
  }),
});
const LimitParams = Type.Object({
  ...SlugParams.properties,
  scope: Type.String({
    maxLength: 100,
    description: '`project`: the project as a whole; `token`: each of its tokens',
    examples: ['project'],
  }),
});

/** A limit as sent: any number here, so the access area's rule (a whole number from 0) decides. */
const LimitInput = (description: string) =>
  Type.Optional(
    Type.Union([Type.Number(), Type.Null()], { description: `${description}; null or absent: no limit` }),
  );

const LimitsInput = Type.Object(
  {
    requests_per_minute: LimitInput('Requests per minute'),
    tokens_per_minute: LimitInput('Tokens (input + output) per minute'),
    concurrent_requests: LimitInput('Requests at once'),
  },
  {
    additionalProperties: false,
    description: 'The complete limits of the scope: a dimension left out has none',
  },
);

export function budgetRoutes(app: AdminApp, ctx: AdminContext): void {
  app.put(
    '/projects/:slug/allocations/:provider',
    {
      schema: {
        ...secured('PUT'),
        summary: "Set a project's allocation for one provider bucket",
        description: 'Sets (does not add to) the allocation; what was spent stays spent.',
        params: AllocationParams,
        body: Type.Object(
          { usd: Type.Number({ description: 'US dollars, 0 to 1e9', examples: [25] }) },
          { additionalProperties: false },
        ),
        response: {
          200: AllocationSchema,
          ...adminErrors(...BODY_ERRORS, 'unknown_project', 'invalid_provider', 'invalid_amount'),
        },
      },
    },
    async (request) => {
      const { slug, provider } = request.params;
      const input = { slug, provider, usd: request.body.usd, actor: ctx.actorOf(request) };
      const result = await setAllocation(ctx.db, input);
      return {
        object: 'allocation' as const,
        project: slug.trim(),
        provider: result.provider,
        allocated: result.allocatedMicros / 1_000_000,
      };
    },
  );
  limitRoutes(app, ctx);
  usageRoute(app, ctx);
}

function limitRoutes(app: AdminApp, ctx: AdminContext): void {
  app.get(
    '/projects/:slug/limits',
    {
      schema: {
        ...secured('GET'),
        summary: "A project's rate limits",
        params: SlugParams,
        response: { 200: RateLimitsSchema, ...adminErrors('unknown_project') },
      },
    },
    async (request) => {
      const { slug } = request.params;
      return rateLimitsJson(slug.trim(), await projectRateLimits(ctx.db, slug));
    },
  );
  app.put(
    '/projects/:slug/limits/:scope',
    {
      schema: {
        ...secured('PUT'),
        summary: "Replace a project's (or each of its tokens') rate limits",
        description: 'Every instance applies the change within a second.',
        params: LimitParams,
        body: LimitsInput,
        response: {
          200: RateLimitsSchema,
          ...adminErrors(...BODY_ERRORS, 'unknown_project', 'invalid_limit'),
        },
      },
    },
    async (request) => {
      const { slug, scope } = request.params;
      const body = request.body;
      const change = {
        requestsPerMinute: body.requests_per_minute ?? null,
        tokensPerMinute: body.tokens_per_minute ?? null,
        concurrentRequests: body.concurrent_requests ?? null,
      };
      await setRateLimits(ctx.db, { slug, scope, change, actor: ctx.actorOf(request) });
      return rateLimitsJson(slug.trim(), await projectRateLimits(ctx.db, slug));
    },
  );
}

function usageRoute(app: AdminApp, ctx: AdminContext): void {
  app.get(
    '/projects/:slug/usage',
    {
      schema: {
        ...secured('GET'),
        summary: 'Allocation and use of each provider bucket of a project',
        description:
          'Committed figures from the database: requests settled on an instance appear within its flush interval (20 ms by default).',
        params: SlugParams,
        response: { 200: ListOf(BucketSchema), ...adminErrors('unknown_project') },
      },
    },
    async (request) => ({
      object: 'list' as const,
      data: (await projectUsage(ctx.db, request.params.slug)).map(bucketJson),
    }),
  );
}
