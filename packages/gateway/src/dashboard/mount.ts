/**
 * Everything the gateway serves to browsers, in one call from app.ts: the landing page at `/`,
 * the account dashboard and, where configured, the development identity provider.
 */
import type { Redis } from '@app/db';
import { randomBytes } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Kysely } from 'kysely';
import type { GatewayConfig } from '../config.ts';
import type { GatewayDatabase } from '../db/schema.ts';
import { DASHBOARD_PATH } from '../error-format.ts';
import { DEV_IDP_PATH, devIdpRoutes, inProcessFetch, loadDevUsers } from '../dev-idp/index.ts';
import type { SecretEnv } from '../upstream/credentials/index.ts';
import { dashboardEnabled, dashboardOff, devIdpEnabled } from './config.ts';
import type { DashboardContext } from './context.ts';
import { type DashboardDeps, dashboardRoutes } from './index.ts';
import { dashboardOffRoute, landingRoute } from './landing.ts';

export interface WebDeps {
  readonly config: GatewayConfig;
  readonly db: Kysely<GatewayDatabase>;
  readonly tokens: DashboardContext['tokens'];
  readonly ledger: DashboardContext['ledger'];
  readonly env: SecretEnv;
  readonly redis: Redis | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    /** Whether /dashboard is served (other areas link to it only then). */
    dashboardEnabled: boolean;
  }
}

const DEV_CLIENT_ID = 'gateway-dashboard';

/** `publicUrl`, else where this process listens (the port is known only after listen with 0). */
export function publicBaseOf(app: FastifyInstance, config: GatewayConfig): () => string {
  return () => {
    if (config.publicUrl) return config.publicUrl.replace(/\/+$/, '');
    const address = app.server.address();
    const port = address !== null && typeof address === 'object' ? address.port : config.port;
    const host = ['0.0.0.0', '::', ''].includes(config.host) ? '127.0.0.1' : config.host;
    return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  };
}

export async function mountWeb(app: FastifyInstance, deps: WebDeps): Promise<void> {
  const { config } = deps;
  const enabled = dashboardEnabled(config);
  app.decorate('dashboardEnabled', enabled);
  await app.register(landingRoute({ dashboard: enabled }));
  const off = dashboardOff(config);
  if (off) {
    app.log.info(`dashboard off (${off.reason}); to turn it on, ${off.turnOn}`);
    await app.register(dashboardOffRoute(off));
    return;
  }
  const publicBase = publicBaseOf(app, config);
  let devIdp: DashboardDeps['devIdp'];
  if (devIdpEnabled(config)) {
    devIdp = {
      clientId: DEV_CLIENT_ID,
      clientSecret: randomBytes(32).toString('base64url'),
      fetch: inProcessFetch(app, publicBase),
    };
    const client = devIdp;
    await app.register(
      devIdpRoutes({
        users: loadDevUsers(config.dataDir),
        settings: () => ({
          publicBase: publicBase(),
          client: {
            clientId: client.clientId,
            clientSecret: client.clientSecret,
            redirectUri: `${publicBase()}/dashboard/callback`,
            postLogoutRedirectUri: `${publicBase()}/dashboard`,
          },
        }),
      }),
    );
    app.log.warn(
      `DEVELOPMENT identity provider enabled at ${DEV_IDP_PATH} with fixed dev users: never use it in production (set GATEWAY_OIDC_ISSUER, or GATEWAY_DEV_IDP=off)`,
    );
  }
  await app.register(
    dashboardRoutes({
      config: config.dashboard,
      db: deps.db,
      tokens: deps.tokens,
      ledger: deps.ledger,
      ...(deps.redis ? { redis: deps.redis } : {}),
      publicBase,
      secureCookies: config.publicUrl?.startsWith('https://') ?? false,
      env: deps.env,
      alertWebhooks: { allowHttp: config.alerts.allowHttp, allowPrivate: config.alerts.allowPrivate },
      ...(devIdp ? { devIdp } : {}),
    }),
  );
}

/** What `npm start` prints about the dashboard: where it is, or why it is off and what turns it on. */
export function dashboardBanner(config: GatewayConfig, url: string): string[] {
  const off = dashboardOff(config);
  return off
    ? [`  dashboard: off (${off.reason})`, `    to turn it on, ${off.turnOn}`]
    : [`  dashboard: ${url}${DASHBOARD_PATH}`];
}

/** Lines `npm start` prints when the development provider runs: who can sign in, and how. */
export function devIdpBanner(config: GatewayConfig): string[] {
  if (!dashboardEnabled(config) || !devIdpEnabled(config)) return [];
  return [
    `  DEVELOPMENT identity provider at ${DEV_IDP_PATH} (never in production); sign in to the dashboard as:`,
    ...loadDevUsers(config.dataDir).map(
      (user) => `    ${user.email}  password: ${user.password}  (${user.name})`,
    ),
  ];
}
