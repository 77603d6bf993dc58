import type { FastifyPluginAsync } from 'fastify';
import type { Kysely } from 'kysely';
import { type Static, Type } from 'typebox';
import { type AccessControl, type Ledger, PROVIDERS } from '../contracts.ts';
import type { GatewayDatabase } from '../db/schema.ts';
import { AUTHENTICATED_ROUTE_ERRORS, errorResponses } from '../openapi-errors.ts';
import { registerAccountUsage } from './account-usage-route.ts';

const Usd = (description: string) => Type.Number({ description: `${description}, US dollars` });

const BucketSchema = Type.Object({
  provider: Type.Enum(PROVIDERS, { description: 'The provider bucket' }),
  allocated: Usd('Allocation of this bucket'),
  spent: Usd('Settled cost so far'),
  reserved: Usd('Held by requests in flight and by the budget leases of other gateway instances'),
  remaining: Usd('allocated - spent - reserved, never below 0'),
});

export const AccountSchema = Type.Object({
  object: Type.Literal('account'),
  user: Type.Object({ id: Type.Integer(), email: Type.String() }),
  project: Type.Object({ id: Type.Integer(), slug: Type.String() }),
  token: Type.Object({
    id: Type.String({ description: 'The token identifier (jti); revoke with gatewayctl tokens revoke' }),
    expires_at: Type.String({ format: 'date-time' }),
  }),
  allocations: Type.Array(BucketSchema, { description: 'One entry per provider bucket with an allocation' }),
});

const usd = (micros: number) => micros / 1_000_000;

/**
 * GET /v1/account: who the token belongs to and what is left in each bucket; GET
 * /v1/account/usage: what the caller spent.
 */
export function accountRoutes(deps: {
  control: AccessControl;
  ledger: Ledger;
  db: Kysely<GatewayDatabase>;
}): FastifyPluginAsync {
  return async (app) => {
    registerAccountUsage(app, deps);
    app.get(
      '/v1/account',
      {
        schema: {
          tags: ['account'],
          summary: 'The calling account, its project, token expiry and allocations',
          description:
            'Answers for the personal access token sent. Amounts are US dollars; `remaining` is what new requests can still reserve.',
          security: [{ bearerAuth: [] }],
          response: { 200: AccountSchema, ...errorResponses(AUTHENTICATED_ROUTE_ERRORS) },
        },
      },
      async (request): Promise<Static<typeof AccountSchema>> => {
        const principal = await deps.control.authenticate(request);
        const balances = await deps.ledger.balances(principal.projectId);
        return {
          object: 'account',
          user: { id: principal.userId, email: principal.email },
          project: { id: principal.projectId, slug: principal.projectSlug },
          token: { id: principal.tokenId, expires_at: principal.tokenExpiresAt.toISOString() },
          allocations: PROVIDERS.flatMap((provider) => {
            const bucket = balances[provider];
            if (!bucket) return [];
            return [
              {
                provider,
                allocated: usd(bucket.allocatedMicros),
                spent: usd(bucket.spentMicros),
                reserved: usd(bucket.reservedMicros),
                remaining: usd(bucket.remainingMicros),
              },
            ];
          }),
        };
      },
    );
  };
}
