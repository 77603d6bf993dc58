/** Users and projects: list, create, read; a project's IP allowlist. */
import { Type } from 'typebox';
import { addProject, addUser, setProjectIpAllow } from '../access/admin.ts';
import { listProjects, listUsers } from '../access/listings.ts';
import { type AdminApp, type AdminContext, locationOf, secured, single } from './context.ts';
import { adminErrors, BODY_ERRORS } from './errors.ts';
import { ListOf, ProjectSchema, projectJson, UserSchema, userJson } from './schemas.ts';

const EmailParams = Type.Object({ email: Type.String({ maxLength: 320, examples: ['alice@example.com'] }) });
export const SlugParams = Type.Object({ slug: Type.String({ maxLength: 100, examples: ['research'] }) });
const IpAllow = Type.Array(Type.String({ maxLength: 100 }), {
  maxItems: 1000,
  description: 'IPv4/IPv6 CIDRs or single addresses; [] = any address',
  examples: [['203.0.113.0/24', '2001:db8:42::/48']],
});

const NewUser = Type.Object(
  {
    email: Type.String({ maxLength: 320, examples: ['alice@example.com'] }),
    admin: Type.Optional(Type.Boolean({ description: 'A gateway admin (default false)' })),
  },
  { additionalProperties: false },
);
const NewProject = Type.Object(
  {
    slug: Type.String({
      maxLength: 100,
      description: 'Lower-case letters, digits and -, at most 63',
      examples: ['research'],
    }),
    ip_allow: Type.Optional(IpAllow),
  },
  { additionalProperties: false },
);

export function userRoutes(app: AdminApp, ctx: AdminContext): void {
  app.get(
    '/users',
    {
      schema: {
        ...secured('GET'),
        summary: 'Every user',
        response: { 200: ListOf(UserSchema), ...adminErrors() },
      },
    },
    async () => ({ object: 'list' as const, data: (await listUsers(ctx.db)).map(userJson) }),
  );
  app.post(
    '/users',
    {
      schema: {
        ...secured('POST'),
        summary: 'Create a user',
        description: 'Answers 201 with the user and its URL in `Location`.',
        body: NewUser,
        response: {
          201: UserSchema,
          ...adminErrors(...BODY_ERRORS, 'invalid_email', 'duplicate_user'),
        },
      },
    },
    async (request, reply) => {
      const { email, admin } = request.body;
      const user = await addUser(ctx.db, { email, admin: admin === true, actor: ctx.actorOf(request) });
      reply.code(201).header('location', locationOf('users', user.email));
      return userJson(single(await listUsers(ctx.db, user.email)));
    },
  );
  app.get(
    '/users/:email',
    {
      schema: {
        ...secured('GET'),
        summary: 'One user',
        params: EmailParams,
        response: { 200: UserSchema, ...adminErrors('invalid_email', 'unknown_user') },
      },
    },
    async (request) => userJson(single(await listUsers(ctx.db, request.params.email))),
  );
}

export function projectRoutes(app: AdminApp, ctx: AdminContext): void {
  app.get(
    '/projects',
    {
      schema: {
        ...secured('GET'),
        summary: 'Every project',
        response: { 200: ListOf(ProjectSchema), ...adminErrors() },
      },
    },
    async () => ({ object: 'list' as const, data: (await listProjects(ctx.db)).map(projectJson) }),
  );
  app.post(
    '/projects',
    {
      schema: {
        ...secured('POST'),
        summary: 'Create a project',
        description: 'Answers 201 with the project and its URL in `Location`.',
        body: NewProject,
        response: {
          201: ProjectSchema,
          ...adminErrors(...BODY_ERRORS, 'invalid_slug', 'invalid_cidr', 'duplicate_project'),
        },
      },
    },
    async (request, reply) => {
      const { slug, ip_allow: ipAllow } = request.body;
      const project = await addProject(ctx.db, {
        slug,
        ...(ipAllow ? { ipAllow } : {}),
        actor: ctx.actorOf(request),
      });
      reply.code(201).header('location', locationOf('projects', project.slug));
      return projectJson(await oneProject(ctx, project.slug));
    },
  );
  app.get(
    '/projects/:slug',
    {
      schema: {
        ...secured('GET'),
        summary: 'One project',
        params: SlugParams,
        response: { 200: ProjectSchema, ...adminErrors('unknown_project') },
      },
    },
    async (request) => projectJson(await oneProject(ctx, request.params.slug)),
  );
  ipAllowRoute(app, ctx);
}

function ipAllowRoute(app: AdminApp, ctx: AdminContext): void {
  app.put(
    '/projects/:slug/ip-allow',
    {
      schema: {
        ...secured('PUT'),
        summary: "Replace a project's IP allowlist",
        description:
          "The project's tokens follow at once on this instance and within a second on the others (at once with Redis).",
        params: SlugParams,
        body: Type.Object({ ip_allow: IpAllow }, { additionalProperties: false }),
        response: {
          200: ProjectSchema,
          ...adminErrors(...BODY_ERRORS, 'unknown_project', 'invalid_cidr'),
        },
      },
    },
    async (request) => {
      const { slug } = request.params;
      const ipAllow = request.body.ip_allow;
      const project = await setProjectIpAllow(ctx.db, { slug, ipAllow, actor: ctx.actorOf(request) });
      await ctx.tokens.announceRevocation(`ip allowlist ${project.slug}`);
      return projectJson(await oneProject(ctx, project.slug));
    },
  );
}

async function oneProject(ctx: AdminContext, slug: string) {
  return single(await listProjects(ctx.db, slug));
}
