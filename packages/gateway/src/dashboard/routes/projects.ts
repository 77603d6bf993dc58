/** Home, membership requests, project pages, member decisions and allocations. */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import {
  AccessAdminError,
  type AdminErrorCode,
  addProject,
  approveMembership,
  requestToJoin,
  revokeMembership,
  setAllocation,
  userActor,
} from '../../access/admin.ts';
import {
  allProjectSlugs,
  membersOf,
  membershipsOf,
  type ProjectView,
  projectViewFor,
} from '../../access/directory.ts';
import {
  csrfTokenFor,
  type DashboardContext,
  DashboardError,
  field,
  notFound,
  requireViewer,
  type Viewer,
  viewerOf,
} from '../context.ts';
import { activeAlerts } from '../../alerts/active.ts';
import { alertSettings } from '../../alerts/settings.ts';
import { bucketUsage, dailySpend, tokenUsage } from '../usage-data.ts';
import type { AlertFormState } from '../views/alerts.ts';
import type { IpAllowState } from '../views/admin.ts';
import { CONFIRM } from '../views/confirm.ts';
import { projectTrail } from '../views/layout.ts';
import {
  type AllocationState,
  homePage,
  type JoinOutcome,
  projectPage,
  revokeMemberPage,
  signInPage,
} from '../views/pages.ts';

/** The allocation form's field each refusal of setAllocation is about. */
const ALLOCATION_FIELD: Partial<Record<AdminErrorCode, AllocationState['field']>> = {
  invalid_provider: 'provider',
  invalid_amount: 'usd',
};

/** Days of spend in the usage charts. */
export const CHART_DAYS = 30;

export function chromeOf(request: FastifyRequest, reply: FastifyReply) {
  const viewer = requireViewer(request);
  return { email: viewer.user.email, csrf: csrfTokenFor(reply) };
}

function html(reply: FastifyReply, body: string): FastifyReply {
  return reply.type('text/html; charset=utf-8').send(body);
}

/** The project as the viewer may see it; anything else is "not found", not "forbidden". */
export async function visibleProject(
  ctx: DashboardContext,
  viewer: Viewer,
  slug: string,
): Promise<ProjectView> {
  const view = await projectViewFor(ctx.db, slug, viewer.user);
  if (!view) throw notFound();
  return view;
}

/** The project page, also re-rendered with the problem of a refused form (`status` 400). */
export async function sendProjectPage(
  ctx: DashboardContext,
  request: FastifyRequest,
  reply: FastifyReply,
  input: {
    view: ProjectView;
    ipAllow?: Omit<IpAllowState, 'current'>;
    allocation?: AllocationState;
    alertForm?: AlertFormState;
    status?: number;
  },
): Promise<FastifyReply> {
  const viewer = requireViewer(request);
  const { view } = input;
  const [members, buckets, days, tokens, project, active, alertSetup] = await Promise.all([
    view.canAdminister ? membersOf(ctx.db, view.id) : Promise.resolve(undefined),
    bucketUsage(ctx.db, ctx.ledger, view.id),
    dailySpend(ctx.db, { projectId: view.id }, CHART_DAYS),
    tokenUsage(ctx.db, view.id, view.canAdminister ? {} : { userId: viewer.user.id }),
    ctx.db.selectFrom('projects').select('ip_allow').where('id', '=', view.id).executeTakeFirstOrThrow(),
    activeAlerts(ctx.db, view.id),
    view.canAdminister ? alertSettings(ctx.db, view.slug) : Promise.resolve(undefined),
  ]);
  const body = projectPage(chromeOf(request, reply), {
    view,
    members,
    isGatewayAdmin: viewer.user.isAdmin,
    usage: { buckets, days, tokens, allTokens: view.canAdminister },
    ipAllow: { current: JSON.parse(project.ip_allow) as string[], ...input.ipAllow },
    ...(input.allocation ? { allocation: input.allocation } : {}),
    alerts: {
      active,
      ...(alertSetup ? { settings: alertSetup } : {}),
      ...(input.alertForm ? { form: input.alertForm } : {}),
    },
  });
  return html(reply.code(input.status ?? 200), body);
}

async function sendHomePage(
  ctx: DashboardContext,
  request: FastifyRequest,
  reply: FastifyReply,
  join?: JoinOutcome,
  status = 200,
): Promise<FastifyReply> {
  const viewer = requireViewer(request);
  const [memberships, allProjects] = await Promise.all([
    membershipsOf(ctx.db, viewer.user.id),
    viewer.user.isAdmin ? allProjectSlugs(ctx.db) : Promise.resolve([]),
  ]);
  const body = homePage(chromeOf(request, reply), {
    memberships,
    isAdmin: viewer.user.isAdmin,
    allProjects,
    ...(join ? { join } : {}),
  });
  return html(reply.code(status), body);
}

export async function administeredProject(
  ctx: DashboardContext,
  viewer: Viewer,
  slug: string,
): Promise<ProjectView> {
  const view = await visibleProject(ctx, viewer, slug);
  if (!view.canAdminister) throw notFound();
  return view;
}

const slugParams = {
  type: 'object',
  properties: { slug: { type: 'string', maxLength: 63 } },
  required: ['slug'],
};

export function projectRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  app.get('/', { schema: { hide: true } }, async (request, reply) => {
    if (!viewerOf(request)) return html(reply, signInPage());
    return sendHomePage(ctx, request, reply);
  });

  // Answered alike for a project that exists and one that does not (requestToJoin records
  // nothing then): the home page with "request sent", not the project page the requester may
  // not see until approved.
  app.post('/memberships', { schema: { hide: true } }, async (request, reply) => {
    const viewer = requireViewer(request);
    const slug = field(request.body, 'slug').trim();
    if (slug === '') return sendHomePage(ctx, request, reply, { problem: "Enter the project's name." }, 400);
    await requestToJoin(ctx.db, { slug, email: viewer.user.email, actor: userActor(viewer.user) });
    return sendHomePage(ctx, request, reply, { sent: slug });
  });

  app.post('/projects', { schema: { hide: true } }, async (request, reply) => {
    const viewer = requireViewer(request);
    if (!viewer.user.isAdmin) throw new DashboardError(403, 'Only gateway admins create projects.');
    const project = await addProject(ctx.db, {
      slug: field(request.body, 'slug'),
      actor: userActor(viewer.user),
    });
    return reply.redirect(`/dashboard/projects/${project.slug}`, 303);
  });

  app.get('/projects/:slug', { schema: { hide: true, params: slugParams } }, async (request, reply) => {
    const viewer = requireViewer(request);
    const { slug } = request.params as { slug: string };
    return sendProjectPage(ctx, request, reply, { view: await visibleProject(ctx, viewer, slug) });
  });

  app.post('/projects/:slug/members/:decision', { schema: { hide: true } }, async (request, reply) => {
    const viewer = requireViewer(request);
    const { slug, decision } = request.params as { slug: string; decision: string };
    const view = await administeredProject(ctx, viewer, slug);
    const change = { slug: view.slug, email: field(request.body, 'email'), actor: userActor(viewer.user) };
    if (decision === 'approve') await approveMembership(ctx.db, change);
    else if (decision === 'revoke') {
      // Asks first, for someone listed as a member; anyone else is refused by revokeMembership.
      const member = (await membersOf(ctx.db, view.id)).find(
        (row) => row.email === change.email.trim().toLowerCase(),
      );
      if (member && field(request.body, CONFIRM.name) !== CONFIRM.value) {
        const chrome = { ...chromeOf(request, reply), trail: projectTrail(view.slug) };
        return html(reply, revokeMemberPage(chrome, { slug: view.slug, email: member.email }));
      }
      await revokeMembership(ctx.db, change);
      // The member's tokens stop working: tell every instance now.
      await ctx.tokens.announceRevocation(`membership ${view.slug}`);
    } else throw notFound();
    request.log.info({ project: view.slug, decision, by: viewer.user.id }, 'dashboard membership decision');
    return reply.redirect(`/dashboard/projects/${view.slug}`, 303);
  });

  app.post(
    '/projects/:slug/allocations',
    { schema: { hide: true, params: slugParams } },
    async (request, reply) => {
      const viewer = requireViewer(request);
      const { slug } = request.params as { slug: string };
      const view = await visibleProject(ctx, viewer, slug);
      if (!viewer.user.isAdmin) throw new DashboardError(403, 'Only gateway admins set allocations.');
      const [provider, usd] = [field(request.body, 'provider'), field(request.body, 'usd').trim()];
      try {
        await setAllocation(ctx.db, { slug: view.slug, provider, usd, actor: userActor(viewer.user) });
      } catch (error) {
        if (!(error instanceof AccessAdminError)) throw error;
        const at = ALLOCATION_FIELD[error.code];
        if (!at) throw error;
        // The page again, the reason next to the field; nothing was changed.
        const allocation = { problem: error.message, field: at, provider, usd };
        return sendProjectPage(ctx, request, reply, { view, allocation, status: 400 });
      }
      request.log.info({ project: view.slug, by: viewer.user.id }, 'dashboard allocation set');
      return reply.redirect(`/dashboard/projects/${view.slug}`, 303);
    },
  );
}
