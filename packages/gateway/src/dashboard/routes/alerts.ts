/**
 * Budget alert settings of a project, for its project admins: thresholds and webhook, the
 * signing secret (shown on the answering page only, never again), and dismissing the banner.
 */
import type { FastifyInstance } from 'fastify';
import { AccessAdminError, userActor } from '../../access/admin.ts';
import { dismissAlerts } from '../../alerts/active.ts';
import { rotateWebhookSecret, setAlertSettings } from '../../alerts/settings.ts';
import { type DashboardContext, field, requireViewer } from '../context.ts';
import { administeredProject, sendProjectPage } from './projects.ts';

const slugParams = {
  type: 'object',
  properties: { slug: { type: 'string', maxLength: 63 } },
  required: ['slug'],
};

export function alertRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  const route = { schema: { hide: true, params: slugParams } };

  app.post('/projects/:slug/alerts', route, async (request, reply) => {
    const viewer = requireViewer(request);
    const { slug } = request.params as { slug: string };
    const view = await administeredProject(ctx, viewer, slug);
    const [thresholds, webhookUrl] = [field(request.body, 'thresholds'), field(request.body, 'webhook')];
    try {
      const { newSecret } = await setAlertSettings(ctx.db, ctx.alertWebhooks, {
        slug: view.slug,
        thresholds,
        webhookUrl,
        actor: userActor(viewer.user),
      });
      request.log.info({ project: view.slug, by: viewer.user.id }, 'dashboard budget alerts set');
      if (!newSecret) return await reply.redirect(`/dashboard/projects/${view.slug}`, 303);
      // The one page that shows the secret; the browser is not redirected, so a reload asks first.
      const alertForm = { newSecret, saved: true };
      return await sendProjectPage(ctx, request, reply, { view, alertForm });
    } catch (error) {
      if (!(error instanceof AccessAdminError)) throw error;
      const at =
        error.code === 'invalid_thresholds'
          ? 'thresholds'
          : error.code === 'invalid_webhook'
            ? 'webhook'
            : undefined;
      if (!at) throw error;
      const alertForm = { problem: { field: at, message: error.message }, thresholds, webhookUrl } as const;
      return sendProjectPage(ctx, request, reply, { view, alertForm, status: 400 });
    }
  });

  app.post('/projects/:slug/alerts/rotate-secret', route, async (request, reply) => {
    const viewer = requireViewer(request);
    const { slug } = request.params as { slug: string };
    const view = await administeredProject(ctx, viewer, slug);
    const newSecret = await rotateWebhookSecret(ctx.db, { slug: view.slug, actor: userActor(viewer.user) });
    request.log.info({ project: view.slug, by: viewer.user.id }, 'dashboard webhook secret rotated');
    return sendProjectPage(ctx, request, reply, { view, alertForm: { newSecret } });
  });

  app.post('/projects/:slug/alerts/dismiss', route, async (request, reply) => {
    const viewer = requireViewer(request);
    const { slug } = request.params as { slug: string };
    const view = await administeredProject(ctx, viewer, slug);
    await dismissAlerts(ctx.db, { slug: view.slug, actor: userActor(viewer.user) });
    return reply.redirect(`/dashboard/projects/${view.slug}`, 303);
  });
}
