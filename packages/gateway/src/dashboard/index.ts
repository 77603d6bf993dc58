/**
 * The account dashboard under /dashboard: OpenID Connect sign-in, server-side sessions, and the
 * account operations of the access area (the same functions gatewayctl calls), as
 * server-rendered pages. docs/gateway/dashboard.md describes it for users and operators.
 */
import type { Redis } from '@app/db';
import cookie from '@fastify/cookie';
import csrf from '@fastify/csrf-protection';
import formbody from '@fastify/formbody';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import { parseDuration } from '../access/duration.ts';
import { userById } from '../access/identities.ts';
import type { GatewayDatabase } from '../db/schema.ts';
import { readSecret, type SecretEnv } from '../upstream/credentials/index.ts';
import type { DashboardConfig } from './config.ts';
import { BASE, COOKIES, cookieOptions, type DashboardContext, DashboardError, setViewer } from './context.ts';
import { devIdpUrls } from '../dev-idp/index.ts';
import { createOidcClient, type CustomFetch, mayUseHttp, type OidcSettings } from './oidc-client.ts';
import { activityRoutes } from './routes/activity.ts';
import { adminRoutes } from './routes/admin.ts';
import { authRoutes } from './routes/auth.ts';
import { alertRoutes } from './routes/alerts.ts';
import { projectRoutes } from './routes/projects.ts';
import { tokenRoutes } from './routes/tokens.ts';
import {
  contentSecurityPolicy,
  installAssets,
  installErrorPages,
  installSecurityHeaders,
} from './security.ts';
import { createSessionStore } from './session.ts';

export { dashboardEnabled, devIdpEnabled } from './config.ts';

export interface DashboardDeps {
  readonly config: DashboardConfig;
  readonly db: Kysely<GatewayDatabase>;
  readonly tokens: DashboardContext['tokens'];
  readonly ledger: DashboardContext['ledger'];
  /** The gateway's public base URL (known once listening when the port is 0). */
  readonly publicBase: () => string;
  readonly secureCookies: boolean;
  readonly env: SecretEnv;
  /**
   * Set when the in-process development provider is the issuer; `fetch` reaches it inside the
   * process (its URLs are public ones, maybe not reachable from inside behind a proxy).
   */
  readonly devIdp?: {
    readonly clientId: string;
    readonly clientSecret: string;
    readonly fetch?: CustomFetch;
  };
  /** Shared by the gateway's instances: the token-generation limit counts across all of them. */
  readonly redis?: Redis;
  readonly alertWebhooks: DashboardContext['alertWebhooks'];
}

/** Paths served without a session (relative to /dashboard). */
const PUBLIC = new Set(['/', '/login', '/callback', '/assets/dashboard.css', '/assets/copy.js']);

function oidcSettings(deps: DashboardDeps): () => OidcSettings {
  const { config, devIdp } = deps;
  const redirectUri = () => `${deps.publicBase()}${BASE}/callback`;
  if (devIdp)
    return () => ({
      issuer: devIdpUrls(deps.publicBase()).issuer,
      clientId: devIdp.clientId,
      clientSecret: devIdp.clientSecret,
      scopes: config.scopes,
      redirectUri: redirectUri(),
      allowHttp: true,
    });
  const { issuer, clientId, clientSecret } = config;
  if (!issuer || !clientId || !clientSecret)
    throw new Error('dashboard: an issuer, client id and secret are needed');
  // Read at start-up: a missing secret stops the gateway before it serves.
  const secret = readSecret(clientSecret, deps.env);
  return () => ({
    issuer,
    clientId,
    clientSecret: secret,
    scopes: config.scopes,
    redirectUri: redirectUri(),
    allowHttp: mayUseHttp(issuer, false),
  });
}

export function dashboardRoutes(deps: DashboardDeps): FastifyPluginAsync {
  const settings = oidcSettings(deps);
  // Both durations passed dashboardConfigProblems at start-up; the fallbacks are never used.
  const sessionMaxAgeMs = parseDuration(deps.config.sessionMaxAge) ?? 12 * 3_600_000;
  const idleMs = parseDuration(deps.config.sessionIdleTimeout) ?? 30 * 60_000;
  const ctx: DashboardContext = {
    db: deps.db,
    sessions: createSessionStore(deps.db, { idleMs, maxAgeMs: sessionMaxAgeMs }),
    oidc: createOidcClient(settings, deps.devIdp?.fetch),
    tokens: deps.tokens,
    ledger: deps.ledger,
    publicBase: deps.publicBase,
    secureCookies: deps.secureCookies,
    tokensPerMinute: deps.config.tokensPerMinute,
    sessionMaxAgeMs,
    alertWebhooks: deps.alertWebhooks,
    ...(deps.redis ? { redis: deps.redis } : {}),
  };
  return async (app) => {
    await app.register(
      async (scope) => {
        await installPlugins(scope, ctx);
        installSecurityHeaders(scope, () => contentSecurityPolicy(new URL(settings().issuer).origin));
        installErrorPages(scope);
        installAssets(scope);
        scope.addHook('onRequest', (request, reply) => resolveViewer(ctx, request, reply));
        scope.addHook('preValidation', (request, reply, done) => {
          if (request.method === 'POST') scope.csrfProtection(request, reply, done);
          else done();
        });
        authRoutes(scope, ctx);
        projectRoutes(scope, ctx);
        alertRoutes(scope, ctx);
        tokenRoutes(scope, ctx);
        adminRoutes(scope, ctx);
        activityRoutes(scope, ctx);
      },
      { prefix: BASE },
    );
  };
}

async function installPlugins(scope: FastifyInstance, ctx: DashboardContext): Promise<void> {
  await scope.register(cookie);
  await scope.register(formbody);
  await scope.register(csrf, {
    sessionPlugin: '@fastify/cookie',
    cookieKey: COOKIES.csrf,
    // The secret lives in its own HttpOnly cookie, replaced at every sign-in and sign-out.
    cookieOpts: cookieOptions(ctx),
  });
  await scope.register(rateLimit, {
    global: false,
    hook: 'preHandler',
    // With Redis the count is one for every instance, as the gateway's own rate limits are.
    ...(ctx.redis ? { redis: ctx.redis, nameSpace: 'dashboard-rate-limit:' } : {}),
    errorResponseBuilder: () =>
      new DashboardError(429, 'Too many tokens were generated in a short time. Wait a minute and try again.'),
  });
}

/** Finds the signed-in user; pages behind sign-in send everyone else to the sign-in. */
async function resolveViewer(
  ctx: DashboardContext,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  const id = request.cookies[COOKIES.session];
  const session = id ? await ctx.sessions.resolve(id) : undefined;
  const user = session ? await userById(ctx.db, session.userId) : undefined;
  if (session && user) {
    setViewer(request, { session, user });
    return;
  }
  if (id) reply.clearCookie(COOKIES.session, cookieOptions(ctx));
  const path = request.url.split('?')[0] ?? BASE;
  if (PUBLIC.has(path.slice(BASE.length) || '/')) return;
  if (request.method === 'GET' && request.is404 === false) {
    await reply.redirect(`${BASE}/login?returnTo=${encodeURIComponent(path)}`, 302);
    return;
  }
  throw new DashboardError(401, 'Your session has ended. Sign in again to continue.');
}
