/**
 * A project's memberships: list, request (as gatewayctl's `members request`: an unknown project
 * is named, unlike the dashboard's request to join), read, approve, revoke.
 */
import { Type } from 'typebox';
import { approveMembership, requestMembership, revokeMembership } from '../access/admin.ts';
import { findMember, listMembers } from '../access/listings.ts';
import { type AdminApp, type AdminContext, locationOf, secured } from './context.ts';
import { adminErrors, BODY_ERRORS } from './errors.ts';
import { ListOf, MembershipSchema, membershipJson } from './schemas.ts';
import { SlugParams } from './users-projects.ts';

const MemberParams = Type.Object({
  ...SlugParams.properties,
  email: Type.String({ maxLength: 320, examples: ['alice@example.com'] }),
});

const Approval = Type.Object(
  { admin: Type.Optional(Type.Boolean({ description: 'Make the member a project admin' })) },
  { additionalProperties: false },
);

/** The membership as it is now, in full (the access functions answer only part of it). */
function memberOf(ctx: AdminContext) {
  return async (slug: string, email: string) => membershipJson(slug, await findMember(ctx.db, slug, email));
}

export function memberRoutes(app: AdminApp, ctx: AdminContext): void {
  const member = memberOf(ctx);

  app.get(
    '/projects/:slug/members',
    {
      schema: {
        ...secured('GET'),
        summary: "A project's memberships, any status",
        params: SlugParams,
        response: { 200: ListOf(MembershipSchema), ...adminErrors('unknown_project') },
      },
    },
    async (request) => {
      const { slug } = request.params;
      const rows = await listMembers(ctx.db, slug);
      return { object: 'list' as const, data: rows.map((row) => membershipJson(slug.trim(), row)) };
    },
  );
  app.post(
    '/projects/:slug/members',
    {
      schema: {
        ...secured('POST'),
        summary: 'Request membership for a user',
        description:
          'A pending membership (again after a revocation; a request already pending is answered as it is). 201 with its URL in `Location`.',
        params: SlugParams,
        body: Type.Object(
          { email: Type.String({ maxLength: 320, examples: ['alice@example.com'] }) },
          { additionalProperties: false },
        ),
        response: {
          201: MembershipSchema,
          ...adminErrors(
            ...BODY_ERRORS,
            'unknown_project',
            'invalid_email',
            'unknown_user',
            'already_member',
          ),
        },
      },
    },
    async (request, reply) => {
      const { slug } = request.params;
      const input = { slug, email: request.body.email, actor: ctx.actorOf(request) };
      const requested = await requestMembership(ctx.db, input);
      reply
        .code(201)
        .header('location', locationOf('projects', requested.projectSlug, 'members', requested.email));
      return member(requested.projectSlug, requested.email);
    },
  );
  app.get(
    '/projects/:slug/members/:email',
    {
      schema: {
        ...secured('GET'),
        summary: 'One membership',
        params: MemberParams,
        response: {
          200: MembershipSchema,
          ...adminErrors('unknown_project', 'invalid_email', 'unknown_user', 'not_member'),
        },
      },
    },
    async (request) => member(request.params.slug, request.params.email),
  );
  memberDecisionRoutes(app, ctx);
}

/** Approving and revoking: the membership's new state. */
function memberDecisionRoutes(app: AdminApp, ctx: AdminContext): void {
  const member = memberOf(ctx);
  app.post(
    '/projects/:slug/members/:email/approve',
    {
      schema: {
        ...secured('POST'),
        summary: 'Approve a membership (also a revoked one)',
        description: 'Body optional; `{"admin": true}` makes the member a project admin.',
        params: MemberParams,
        body: Approval,
        response: {
          200: MembershipSchema,
          ...adminErrors(
            ...BODY_ERRORS,
            'unknown_project',
            'invalid_email',
            'unknown_user',
            'no_membership_request',
          ),
        },
      },
      // A POST without a body approves as a plain member.
      preValidation: async (request) => {
        request.body ??= {};
      },
    },
    async (request) => {
      const { slug, email } = request.params;
      const { admin } = request.body;
      const approved = await approveMembership(ctx.db, {
        slug,
        email,
        ...(admin === undefined ? {} : { admin }),
        actor: ctx.actorOf(request),
      });
      return member(approved.projectSlug, approved.email);
    },
  );
  app.post(
    '/projects/:slug/members/:email/revoke',
    {
      schema: {
        ...secured('POST'),
        summary: 'Revoke a membership',
        description:
          "The member's tokens stop working at once on this instance and within a second on the others (at once with Redis).",
        params: MemberParams,
        response: {
          200: MembershipSchema,
          ...adminErrors('unknown_project', 'invalid_email', 'unknown_user', 'not_member'),
        },
      },
    },
    async (request) => {
      const { slug, email } = request.params;
      const revoked = await revokeMembership(ctx.db, { slug, email, actor: ctx.actorOf(request) });
      await ctx.tokens.announceRevocation(`membership ${revoked.projectSlug} ${revoked.email}`);
      return member(revoked.projectSlug, revoked.email);
    },
  );
}
