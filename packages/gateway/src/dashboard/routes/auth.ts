/** Sign-in through the identity provider, the callback, sign-out. */
import type { FastifyInstance } from 'fastify';
import { AccessAdminError } from '../../access/admin-errors.ts';
import { signInWithIdentity } from '../../access/identities.ts';
import {
  BASE,
  COOKIES,
  cookieOptions,
  type DashboardContext,
  DashboardError,
  requireViewer,
} from '../context.ts';
import { hashId } from '../session.ts';

const LOGIN_COOKIE_SECONDS = 10 * 60;

/** Only paths of the dashboard itself: an open redirect would hand the session to anyone. */
export function safeReturnTo(value: unknown): string {
  if (typeof value !== 'string') return BASE;
  return /^\/dashboard(\/[A-Za-z0-9\-._~/]*)?$/.test(value) ? value : BASE;
}

export function authRoutes(app: FastifyInstance, ctx: DashboardContext): void {
  app.get('/login', { schema: { hide: true } }, async (request, reply) => {
    const returnTo = safeReturnTo((request.query as Record<string, unknown>).returnTo);
    // Cookies are per host: start on the public host so the callback finds them.
    const base = new URL(ctx.publicBase());
    if (request.host !== base.host) return reply.redirect(`${ctx.publicBase()}${BASE}/login`, 302);
    const { url, login } = await ctx.oidc.begin(returnTo);
    const id = await ctx.sessions.startLogin(login);
    reply.setCookie(COOKIES.login, id, cookieOptions(ctx, LOGIN_COOKIE_SECONDS));
    return reply.redirect(url.href, 302);
  });

  app.get('/callback', { schema: { hide: true } }, async (request, reply) => {
    const id = request.cookies[COOKIES.login];
    reply.clearCookie(COOKIES.login, cookieOptions(ctx));
    const login = id ? await ctx.sessions.takeLogin(id) : undefined;
    if (!login)
      throw new DashboardError(400, 'This sign-in was not started here or took too long; sign in again.');
    const query = request.url.includes('?') ? request.url.slice(request.url.indexOf('?')) : '';
    const signedIn = await ctx.oidc.complete(query, login);
    if (!signedIn.email)
      throw new DashboardError(
        403,
        'The identity provider did not share an email address; the gateway needs one (scope "email").',
      );
    const user = await signInWithIdentity(ctx.db, {
      issuer: signedIn.issuer,
      subject: signedIn.subject,
      email: signedIn.email,
      emailVerified: signedIn.emailVerified,
    }).catch((error: unknown) => {
      if (error instanceof AccessAdminError) throw new DashboardError(403, error.message);
      throw error;
    });
    // A new session id at every sign-in: an id planted before it is worthless.
    const previous = request.cookies[COOKIES.session];
    if (previous) await ctx.sessions.destroy(hashId(previous));
    const sessionId = await ctx.sessions.create(user.id, signedIn.idToken ?? null);
    reply.setCookie(COOKIES.session, sessionId, cookieOptions(ctx, Math.floor(ctx.sessionMaxAgeMs / 1000)));
    reply.clearCookie(COOKIES.csrf, cookieOptions(ctx));
    request.log.info({ userId: user.id }, 'dashboard sign-in');
    return reply.redirect(login.returnTo, 303);
  });

  app.post('/logout', { schema: { hide: true } }, async (request, reply) => {
    const viewer = requireViewer(request);
    await ctx.sessions.destroy(viewer.session.idHash);
    reply.clearCookie(COOKIES.session, cookieOptions(ctx));
    reply.clearCookie(COOKIES.csrf, cookieOptions(ctx));
    const atProvider = await ctx.oidc.endSessionUrl(viewer.session.idToken, `${ctx.publicBase()}${BASE}`);
    return reply.redirect(atProvider?.href ?? BASE, 303);
  });
}
