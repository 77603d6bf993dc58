/**
 * What a browser gets outside the dashboard: `GET /`, a page pointing to the interactive API
 * documentation, the dashboard and the OpenAPI document; and, when this gateway serves no
 * dashboard, `/dashboard` saying why. API clients (JSON, or no preference) get the gateway's
 * JSON errors instead.
 * Also `/favicon.ico`, which browsers ask for on every page of the gateway.
 */
import { negotiate } from '@fastify/accept-negotiator';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { gatewayErrors } from '../errors.ts';
import type { DashboardOff } from './config.ts';
import { faviconRoute } from './favicon.ts';
import { html } from './html.ts';
import { contentSecurityPolicy } from './security.ts';
import { page } from './views/layout.ts';

function landingPage(dashboard: boolean): string {
  return page(
    'Welcome',
    { landing: true },
    html`<p>
        An OpenAI-compatible gateway to several model providers. Authenticate API calls with a personal access
        token.
      </p>
      <ul>
        <li><a href="/docs">Interactive API documentation</a></li>
        ${dashboard ? html`<li><a href="/dashboard">Account dashboard</a>: projects and personal access tokens</li>` : ''}
        <li><a href="/openapi.json">OpenAPI document</a> (JSON)</li>
      </ul>`,
  );
}

// The first supported type wins for */* or no header: an API client never gets HTML.
function wantsHtml(request: FastifyRequest): boolean {
  return negotiate(request.headers.accept ?? '*/*', ['application/json', 'text/html']) === 'text/html';
}

function sendPage(reply: FastifyReply, status: number, body: string): FastifyReply {
  return reply
    .code(status)
    .headers({
      'content-type': 'text/html; charset=utf-8',
      'content-security-policy': contentSecurityPolicy(undefined),
      'x-content-type-options': 'nosniff',
      vary: 'accept',
    })
    .send(body);
}

export function landingRoute(options: { dashboard: boolean }): FastifyPluginAsync {
  const body = landingPage(options.dashboard);
  return async (app) => {
    faviconRoute(app);
    app.get('/', { schema: { hide: true } }, async (request, reply) => {
      if (!wantsHtml(request)) throw gatewayErrors.create('not_found', { method: 'GET', path: '/' });
      return sendPage(reply, 200, body);
    });
  };
}

/**
 * `/dashboard` (and below) when this gateway serves no dashboard: 404 `gateway_dashboard_off`
 * with the reason, instead of the "Unknown route" a typo gets.
 */
export function dashboardOffRoute(off: DashboardOff): FastifyPluginAsync {
  const error = () => gatewayErrors.create('gateway_dashboard_off', { reason: off.reason });
  const body = page('Dashboard off', { landing: true }, html`<p role="alert">${error().message}</p>`);
  return async (app) => {
    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      if (!wantsHtml(request)) throw error();
      return sendPage(reply, 404, body);
    };
    app.get('/dashboard', { schema: { hide: true } }, handler);
    app.get('/dashboard/*', { schema: { hide: true } }, handler);
  };
}
