/**
 * The service's base address: a browser gets a page saying what the service is, where its
 * interactive docs, OpenAPI document and health checks are, and how to get a token; an API
 * client (JSON, any type, or no Accept, as curl sends) gets the same as a small JSON document.
 */
import { readFileSync } from 'node:fs';
import { html, landingRoutes } from '@app/http-kit';
import type { FastifyPluginAsync } from 'fastify';

const ICON = readFileSync(new URL('./assets/favicon.svg', import.meta.url));

const AUTHENTICATE = '/api/v1/users/authenticate';

/** Where a client goes from `/`; every one answers GET with 200 (the tests follow each). */
export const LANDING_LINKS = {
  docs: '/docs',
  openapi: '/openapi.json',
  liveness: '/healthz',
  readiness: '/readyz',
  metrics: '/metrics',
} as const;

/** How a caller sends its token, as the OpenAPI document's security schemes name them. */
const TOKEN_PLACES = [
  'Authorization: Bearer <token>',
  'Authorization: Token token=<token>',
  'token query or body parameter',
];

function landingBody() {
  return html`<p>
      A Rails-compatible REST API for the operating data of buildings (occupancy schedules, setpoints, loads),
      their elevators, and two reference lists (fan controls, roof types), in JSON and XML under
      <code>/api/v1</code>.
    </p>
    <ul>
      <li><a href="${LANDING_LINKS.docs}">Interactive API documentation</a>: try every call</li>
      <li><a href="${LANDING_LINKS.openapi}">OpenAPI document</a> (JSON)</li>
      <li>
        Health: <a href="${LANDING_LINKS.liveness}">liveness</a>,
        <a href="${LANDING_LINKS.readiness}">readiness</a> (database reachable)
      </li>
      <li><a href="${LANDING_LINKS.metrics}">Metrics</a> (Prometheus)</li>
    </ul>
    <h2>Authentication</h2>
    <p>
      Every call under <code>/api/v1</code> needs an API token, sent as <code>${TOKEN_PLACES[0]}</code>,
      <code>${TOKEN_PLACES[1]}</code> or a <code>token</code> parameter.
    </p>
    <ul>
      <li>
        With an account: <code>POST ${AUTHENTICATE}</code> with <code>email</code> and
        <code>password</code> issues a new token (<a href="/docs#/users/post_api_v1_users_authenticate"
          >try it</a
        >).
      </li>
      <li>
        The operator, on the server:
        <code>npx energyctl users add --email EMAIL --password-stdin</code> creates a user and its first
        token; <code>npx energyctl tokens issue --email EMAIL</code> issues another one;
        <code>npx energyctl --help</code> lists the rest.
      </li>
    </ul>`;
}

export function energyLanding(info: { title: string; version: string }): FastifyPluginAsync {
  const document = {
    service: info.title,
    version: info.version,
    api: '/api/v1',
    links: LANDING_LINKS,
    authentication: {
      issue: { method: 'POST', href: AUTHENTICATE, parameters: ['email', 'password'] },
      send: TOKEN_PLACES,
    },
  };
  return landingRoutes({
    service: info.title,
    icon: ICON,
    body: landingBody(),
    forApiClients: () => document,
  });
}
