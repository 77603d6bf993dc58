/**
 * Response headers of every dashboard page and the HTML error pages: the gateway's JSON error
 * envelope is for API clients, a browser gets a page saying what happened.
 */
import { readFileSync } from 'node:fs';
import type { FastifyError, FastifyInstance, FastifyReply } from 'fastify';
import { AccessAdminError, type AdminErrorCode } from '../access/admin-errors.ts';
import { DashboardError, viewerOf } from './context.ts';
import { SignInError } from './oidc-client.ts';
import { errorBody, page } from './views/layout.ts';

/** Scripts and styles from this origin only, no inline code; forms post here or to the provider. */
export function contentSecurityPolicy(issuerOrigin: string | undefined): string {
  const formAction = ["'self'", ...(issuerOrigin ? [issuerOrigin] : [])].join(' ');
  return [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self'",
    "connect-src 'self'",
    `form-action ${formAction}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

export function installSecurityHeaders(app: FastifyInstance, csp: () => string): void {
  app.addHook('onSend', async (_request, reply, payload) => {
    reply.headers({
      'content-security-policy': csp(),
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
    });
    // Pages carry anti-forgery tokens and, once, a new access token: never cached.
    if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
    return payload;
  });
}

const ADMIN_STATUS: Partial<Record<AdminErrorCode, number>> = {
  unknown_project: 404,
  unknown_user: 404,
  unknown_token: 404,
  duplicate_project: 409,
  duplicate_user: 409,
  already_member: 409,
  membership_not_approved: 403,
  no_allocation: 403,
  not_member: 404,
  no_membership_request: 404,
};

function describe(error: unknown): { status: number; message: string; log: boolean } {
  if (error instanceof DashboardError) return { status: error.status, message: error.message, log: false };
  if (error instanceof AccessAdminError)
    return { status: ADMIN_STATUS[error.code] ?? 400, message: error.message, log: false };
  if (error instanceof SignInError)
    return { status: 502, message: `Sign-in failed: ${error.message}. Try again.`, log: true };
  const fastifyError = error as Partial<FastifyError>;
  if (fastifyError.code?.startsWith('FST_CSRF_'))
    return {
      status: 403,
      message:
        'This form has expired or did not come from this site. Go back, reload the page and try again.',
      log: false,
    };
  const status = fastifyError.statusCode ?? 500;
  if (status >= 400 && status < 500)
    return { status, message: 'The request was not understood.', log: false };
  return { status: 500, message: 'Something went wrong on our side. Try again later.', log: true };
}

export function sendErrorPage(
  reply: FastifyReply,
  status: number,
  message: string,
  title?: string,
): FastifyReply {
  const viewer = viewerOf(reply.request);
  const chrome = viewer ? { email: viewer.user.email, csrf: safeCsrf(reply) } : {};
  return reply
    .code(status)
    .type('text/html; charset=utf-8')
    .send(page(title ?? (status === 404 ? 'Not found' : 'Something went wrong'), chrome, errorBody(message)));
}

function safeCsrf(reply: FastifyReply): string | undefined {
  try {
    return reply.generateCsrf();
  } catch {
    return undefined;
  }
}

export function installErrorPages(app: FastifyInstance): void {
  app.setErrorHandler(async (error, request, reply) => {
    const { status, message, log } = describe(error);
    if (log) request.log.error({ err: error }, 'dashboard request failed');
    return sendErrorPage(reply, status, message, status === 401 ? 'Sign in' : undefined);
  });
  app.setNotFoundHandler(async (_request, reply) =>
    sendErrorPage(reply, 404, 'There is no such page, or it is not yours to see.'),
  );
}

const ASSETS = new URL('./assets/', import.meta.url);

/** The stylesheet and the copy-button script, read once and served from memory. */
export function installAssets(app: FastifyInstance): void {
  const files = {
    'dashboard.css': {
      type: 'text/css; charset=utf-8',
      body: readFileSync(new URL('dashboard.css', ASSETS)),
    },
    'copy.js': { type: 'text/javascript; charset=utf-8', body: readFileSync(new URL('copy.js', ASSETS)) },
  };
  for (const [name, file] of Object.entries(files))
    app.get(`/assets/${name}`, { schema: { hide: true } }, async (_request, reply) =>
      reply.type(file.type).header('cache-control', 'public, max-age=300').send(file.body),
    );
}
