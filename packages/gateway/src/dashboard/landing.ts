/**
 * What a browser gets outside the dashboard: `GET /`, a page pointing to the interactive API
 * documentation, the dashboard and the OpenAPI document; and, when this gateway serves no
 * dashboard, `/dashboard` saying why. API clients (JSON, or no preference) get the gateway's
 * JSON errors instead. The page's look, its headers and `/favicon.ico` are @app/http-kit's.
 */
import { readFileSync } from 'node:fs';
import { html, landingRoutes, publicPage, sendPage, wantsHtml } from '@app/http-kit';
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { gatewayErrors } from '../errors.ts';
import type { DashboardOff } from './config.ts';

const SERVICE = 'Model gateway';

/** Named by the landing page, the dashboard and the development identity provider's pages. */
const ICON = readFileSync(new URL('./assets/favicon.svg', import.meta.url));

function landingBody(dashboard: boolean) {
  return html`<p>
      An OpenAI-compatible gateway to several model providers. Authenticate API calls with a personal access
      token.
    </p>
    <ul>
      <li><a href="/docs">Interactive API documentation</a></li>
      ${dashboard ? html`<li><a href="/dashboard">Account dashboard</a>: projects and personal access tokens</li>` : ''}
      <li><a href="/openapi.json">OpenAPI document</a> (JSON)</li>
    </ul>`;
}

export function landingRoute(options: { dashboard: boolean }): FastifyPluginAsync {
  return landingRoutes({
    service: SERVICE,
    icon: ICON,
    body: landingBody(options.dashboard),
    forApiClients: () => {
      throw gatewayErrors.create('not_found', { method: 'GET', path: '/' });
    },
  });
}

/**
 * `/dashboard` (and below) when this gateway serves no dashboard: 404 `gateway_dashboard_off`
 * with the reason, instead of the "Unknown route" a typo gets.
 */
export function dashboardOffRoute(off: DashboardOff): FastifyPluginAsync {
  const error = () => gatewayErrors.create('gateway_dashboard_off', { reason: off.reason });
  const body = publicPage(SERVICE, 'Dashboard off', html`<p role="alert">${error().message}</p>`);
  return async (app) => {
    const handler = async (request: FastifyRequest, reply: FastifyReply) => {
      if (!wantsHtml(request)) throw error();
      return sendPage(reply, 404, body);
    };
    app.get('/dashboard', { schema: { hide: true } }, handler);
    app.get('/dashboard/*', { schema: { hide: true } }, handler);
  };
}
