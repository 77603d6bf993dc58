/**
 * Personal access tokens of one project: list, generate (rate-limited), revoke. The new token
 * reaches the page that shows it in a short-lived cookie scoped to that page, cleared as it is
 * shown (POST-redirect-GET): a reload or a later visit has nothing left to show.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { AccessAdminError, issueToken, revokeToken, userActor } from '../../access/admin.ts';
import type { IssuedToken } from '../../access/admin-tokens.ts';
import { ownTokens, type ProjectView } from '../../access/directory.ts';
import { type DashboardContext, DashboardError, field, notFound, requireViewer } from '../context.ts';
import { cookieOptions, COOKIES } from '../context.ts';
import { dailySpend, visibleToken } from '../usage-data.ts';
import { CONFIRM } from '../views/confirm.ts';
import {
  type NewToken,
  type NewTokenDraft,
  newTokenPage,
  revokeTokenPage,
  tokensPage,
  tokensTrail,
} from '../views/tokens.ts';
import { tokenUsagePage } from '../views/usage.ts';
import { CHART_DAYS, chromeOf, visibleProject } from './projects.ts';

const FLASH_SECONDS = 120;
const MAX_DESCRIPTION = 200;

/** Why this user cannot generate a token for the project now, or undefined when they can. */
export function generateRefusal(view: ProjectView): string | undefined {
  const status = view.membership?.status;
  if (status === undefined) return 'you are not a member of this project; request membership first.';
  if (status === 'pending') return 'your membership request is waiting for approval by a project admin.';
  if (status === 'revoked') return 'your membership of this project was revoked; ask a project admin.';
  if (!view.buckets.some((bucket) => bucket.allocatedMicros > 0))
    return 'this project has no allocation yet; a gateway admin must set one before tokens can be generated.';
  return undefined;
}

function tokensPath(slug: string): string {
  return `/dashboard/projects/${slug}/tokens`;
}

function flashOptions(ctx: DashboardContext, slug: string, maxAge?: number) {
  return { ...cookieOptions(ctx, maxAge), path: tokensPath(slug) };
}

/** Reads and clears the flash: whatever it held is shown on this response only. */
function takeFlash(
  ctx: DashboardContext,
  reply: FastifyReply,
  slug: string,
  raw: string | undefined,
): NewToken | undefined {
  if (raw === undefined) return undefined;
  reply.clearCookie(COOKIES.flash, flashOptions(ctx, slug));
  try {
    const parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Partial<NewToken>;
    if (typeof parsed.token !== 'string' || typeof parsed.expiresAt !== 'string') return undefined;
    return {
      token: parsed.token,
      expiresAt: parsed.expiresAt,
      description: String(parsed.description ?? ''),
    };
  } catch {
    return undefined;
  }
}

const params = {
  type: 'object',
  properties: { slug: { type: 'string', maxLength: 63 } },
  required: ['slug'],
};

export function tokenRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  app.get('/projects/:slug/tokens', { schema: { hide: true, params } }, async (request, reply) => {
    const viewer = requireViewer(request);
    const view = await visibleProject(ctx, viewer, (request.params as { slug: string }).slug);
    const created = takeFlash(ctx, reply, view.slug, request.cookies[COOKIES.flash]);
    const tokens = await ownTokens(ctx.db, viewer.user.id, view.id);
    const body = tokensPage(chromeOf(request, reply), {
      slug: view.slug,
      tokens,
      refusal: generateRefusal(view),
      created,
    });
    return reply.type('text/html; charset=utf-8').send(body);
  });

  app.get('/projects/:slug/tokens/new', { schema: { hide: true, params } }, async (request, reply) => {
    const viewer = requireViewer(request);
    const view = await visibleProject(ctx, viewer, (request.params as { slug: string }).slug);
    const refusal = generateRefusal(view);
    if (refusal) throw new DashboardError(403, `You cannot generate a token: ${refusal}`);
    const body = newTokenPage(chromeOf(request, reply), { slug: view.slug, policy: ctx.tokens.policy });
    return reply.type('text/html; charset=utf-8').send(body);
  });

  // Usage of one token: its owner's, or any of the project's for a project admin.
  app.get('/projects/:slug/tokens/:jti', { schema: { hide: true } }, async (request, reply) => {
    const viewer = requireViewer(request);
    const { slug, jti } = request.params as { slug: string; jti: string };
    const view = await visibleProject(ctx, viewer, slug);
    const token = await visibleToken(ctx.db, {
      projectId: view.id,
      jti,
      userId: viewer.user.id,
      canAdminister: view.canAdminister,
    });
    if (!token) throw notFound();
    const days = await dailySpend(ctx.db, { projectId: view.id, jti }, CHART_DAYS);
    const body = tokenUsagePage(chromeOf(request, reply), { slug: view.slug, token, days });
    return reply.type('text/html; charset=utf-8').send(body);
  });

  app.post(
    '/projects/:slug/tokens',
    {
      schema: { hide: true, params },
      config: {
        rateLimit: {
          max: ctx.tokensPerMinute,
          timeWindow: 60_000,
          keyGenerator: (request) => `dashboard-tokens:${requireViewer(request).user.id}`,
        },
      },
    },
    async (request, reply) => generate(ctx, request, reply),
  );

  // Asks first (a page, without script), revokes when the answer is posted.
  app.post('/projects/:slug/tokens/:jti/revoke', { schema: { hide: true } }, async (request, reply) => {
    const viewer = requireViewer(request);
    const { slug, jti } = request.params as { slug: string; jti: string };
    const view = await visibleProject(ctx, viewer, slug);
    const token = (await ownTokens(ctx.db, viewer.user.id, view.id)).find((row) => row.jti === jti);
    if (!token) throw notFound();
    if (token.state !== 'active') return reply.redirect(tokensPath(view.slug), 303);
    if (field(request.body, CONFIRM.name) !== CONFIRM.value) {
      const chrome = { ...chromeOf(request, reply), trail: tokensTrail(view.slug, true) };
      const body = revokeTokenPage(chrome, { slug: view.slug, jti, description: token.description });
      return reply.type('text/html; charset=utf-8').send(body);
    }
    await revokeToken(ctx.db, jti, userActor(viewer.user));
    await ctx.tokens.announceRevocation(`token ${jti}`);
    request.log.info({ jti, project: view.slug, userId: viewer.user.id }, 'dashboard token revoked');
    return reply.redirect(tokensPath(view.slug), 303);
  });
}

/** Issues a token and hands it to the page that shows it once; a refused field gets the form back. */
async function generate(ctx: DashboardContext, request: FastifyRequest, reply: FastifyReply) {
  const viewer = requireViewer(request);
  const view = await visibleProject(ctx, viewer, (request.params as { slug: string }).slug);
  const refusal = generateRefusal(view);
  if (refusal) throw new DashboardError(403, `You cannot generate a token: ${refusal}`);
  const description = field(request.body, 'description').trim();
  const ttl = field(request.body, 'ttl').trim();
  const refuse = (problem: NonNullable<NewTokenDraft['problem']>) => {
    const draft = { description: description.slice(0, MAX_DESCRIPTION), ttl, problem };
    const body = newTokenPage(chromeOf(request, reply), {
      slug: view.slug,
      policy: ctx.tokens.policy,
      draft,
    });
    return reply.code(400).type('text/html; charset=utf-8').send(body);
  };
  if (description === '' || description.length > MAX_DESCRIPTION)
    return refuse({
      field: 'description',
      message: `Give the token a description of 1 to ${MAX_DESCRIPTION} characters.`,
    });
  let issued: IssuedToken;
  try {
    issued = await issueToken(ctx.db, ctx.tokens.keys, ctx.tokens.policy, {
      email: viewer.user.email,
      slug: view.slug,
      description,
      ...(ttl === '' ? {} : { ttl }),
      actor: userActor(viewer.user),
    });
  } catch (error) {
    // The lifetime is checked where gatewayctl's is: the same rule and the same words.
    if (!(error instanceof AccessAdminError) || error.code !== 'invalid_ttl') throw error;
    return refuse({ field: 'ttl', message: error.message });
  }
  request.log.info({ jti: issued.jti, project: view.slug, userId: viewer.user.id }, 'dashboard token issued');
  const flash: NewToken = { token: issued.token, expiresAt: issued.expiresAt.toISOString(), description };
  reply.setCookie(
    COOKIES.flash,
    Buffer.from(JSON.stringify(flash)).toString('base64url'),
    flashOptions(ctx, view.slug, FLASH_SECONDS),
  );
  return reply.redirect(tokensPath(view.slug), 303);
}
