/**
 * `GET /` for a browser: a page pointing to the interactive API documentation, the dashboard
 * and the OpenAPI document. API clients (JSON, or no preference) keep the gateway's 404 error.
 * Also `/favicon.ico`, which browsers ask for on every page of the gateway.
 */
import { negotiate } from '@fastify/accept-negotiator';
import type { FastifyPluginAsync } from 'fastify';
import { gatewayErrors } from '../errors.ts';
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

export function landingRoute(options: { dashboard: boolean }): FastifyPluginAsync {
  const body = landingPage(options.dashboard);
  return async (app) => {
    faviconRoute(app);
    app.get('/', { schema: { hide: true } }, async (request, reply) => {
      // The first supported type wins for */* or no header: an API client never gets HTML.
      const wanted = negotiate(request.headers.accept ?? '*/*', ['application/json', 'text/html']);
      if (wanted !== 'text/html') throw gatewayErrors.create('not_found', { method: 'GET', path: '/' });
      return reply
        .headers({
          'content-type': 'text/html; charset=utf-8',
          'content-security-policy': contentSecurityPolicy(undefined),
          'x-content-type-options': 'nosniff',
          vary: 'accept',
        })
        .send(body);
    });
  };
}
