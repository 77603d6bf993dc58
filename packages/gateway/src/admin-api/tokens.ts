/** Personal access tokens: issue for a member (shown once), list, read, revoke. */
import { Type } from 'typebox';
import { findToken, issueToken, listTokens, revokeToken } from '../access/admin.ts';
import { type AdminApp, type AdminContext, locationOf, secured } from './context.ts';
import { adminErrors, BODY_ERRORS } from './errors.ts';
import { IssuedTokenSchema, ListOf, TokenSchema, tokenJson } from './schemas.ts';

const TokenParams = Type.Object({
  id: Type.String({ maxLength: 100, description: 'The token id (jti)' }),
});

const NewToken = Type.Object(
  {
    email: Type.String({ maxLength: 320, examples: ['alice@example.com'] }),
    project: Type.String({ maxLength: 100, examples: ['research'] }),
    ttl: Type.Optional(
      Type.String({
        maxLength: 20,
        description: 'Lifetime such as 30m, 12h, 7d (default and cap: configuration)',
      }),
    ),
    description: Type.Optional(Type.String({ maxLength: 200, examples: ['ci runner'] })),
  },
  { additionalProperties: false },
);

const TokenQuery = Type.Object(
  {
    email: Type.Optional(Type.String({ maxLength: 320, description: "Only this user's tokens" })),
    project: Type.Optional(Type.String({ maxLength: 100, description: "Only this project's tokens" })),
  },
  { additionalProperties: false },
);

export function tokenRoutes(app: AdminApp, ctx: AdminContext): void {
  app.post(
    '/tokens',
    {
      schema: {
        ...secured('POST'),
        summary: 'Issue a personal access token for a member of a project',
        description:
          'Only to an approved member of a project with an allocation. The answer carries the token once (`token`); the gateway stores only its id. 201 with its URL in `Location`.',
        body: NewToken,
        response: {
          201: IssuedTokenSchema,
          ...adminErrors(
            ...BODY_ERRORS,
            'invalid_email',
            'unknown_user',
            'unknown_project',
            'invalid_ttl',
            'membership_not_approved',
            'no_allocation',
          ),
        },
      },
    },
    async (request, reply) => {
      const { email, project, ttl, description } = request.body;
      const issued = await issueToken(ctx.db, ctx.tokens.keys, ctx.tokens.policy, {
        email,
        slug: project,
        ...(ttl === undefined ? {} : { ttl }),
        ...(description === undefined ? {} : { description }),
        actor: ctx.actorOf(request),
      });
      reply.code(201).header('location', locationOf('tokens', issued.jti));
      return { ...tokenJson(await findToken(ctx.db, issued.jti)), token: issued.token };
    },
  );
  tokenRecordRoutes(app, ctx);
}

/** Tokens as records: listed, read, revoked; never the token itself. */
function tokenRecordRoutes(app: AdminApp, ctx: AdminContext): void {
  app.get(
    '/tokens',
    {
      schema: {
        ...secured('GET'),
        summary: "Tokens, newest first: one user's, one project's, both, or every token",
        querystring: TokenQuery,
        response: {
          200: ListOf(TokenSchema),
          ...adminErrors('invalid_email', 'unknown_user', 'unknown_project'),
        },
      },
    },
    async (request) => {
      const { email, project } = request.query;
      const tokens = await listTokens(ctx.db, {
        ...(email === undefined ? {} : { email }),
        ...(project === undefined ? {} : { project }),
      });
      return { object: 'list' as const, data: tokens.map(tokenJson) };
    },
  );
  app.get(
    '/tokens/:id',
    {
      schema: {
        ...secured('GET'),
        summary: 'One token (never the token itself)',
        params: TokenParams,
        response: { 200: TokenSchema, ...adminErrors('unknown_token') },
      },
    },
    async (request) => tokenJson(await findToken(ctx.db, request.params.id)),
  );
  app.delete(
    '/tokens/:id',
    {
      schema: {
        ...secured('DELETE'),
        summary: 'Revoke a token',
        description:
          'Idempotent: 204 also for a token already revoked. It stops working at once on this instance and within a second on the others (at once with Redis).',
        params: TokenParams,
        response: { 204: Type.Null({ description: 'Revoked' }), ...adminErrors('unknown_token') },
      },
    },
    async (request, reply) => {
      const revoked = await revokeToken(ctx.db, request.params.id, ctx.actorOf(request));
      await ctx.tokens.announceRevocation(`token ${revoked.jti}`);
      return reply.code(204).send(null);
    },
  );
}
