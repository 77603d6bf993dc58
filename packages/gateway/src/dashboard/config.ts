import { isPostgresUrl } from '@app/db';
import type { EnvMapping } from '@app/http-kit';
import { honouredDuration, MAX_DURATION_DAYS } from '../access/duration.ts';
import { type Static, Type } from 'typebox';

const DURATION = '^[1-9][0-9]*(s|m|h|d)$';
/** Same forms as the upstream credentials: a secret is named by where it lives, never inlined. */
const SECRET_LOCATION = '^(env:[A-Za-z_][A-Za-z0-9_]*|path:.+)$';

/** Configuration of the account dashboard (section `dashboard` of the gateway config). */
export const DashboardConfigSchema = Type.Object(
  {
    enabled: Type.Boolean({
      default: true,
      description: 'Serve the account dashboard under /dashboard (needs an identity provider).',
    }),
    issuer: Type.Optional(
      Type.String({
        pattern: '^https?://',
        description: 'OpenID Connect issuer URL of the identity provider (discovery at /.well-known).',
      }),
    ),
    clientId: Type.Optional(
      Type.String({ minLength: 1, description: 'Client id registered at the issuer.' }),
    ),
    clientSecret: Type.Optional(
      Type.String({
        pattern: SECRET_LOCATION,
        description: 'Where the client secret is: env:NAME or path:/file (never the secret itself).',
      }),
    ),
    scopes: Type.String({
      default: 'openid email profile',
      pattern: '(^| )openid( |$)',
      description: 'Scopes requested at sign-in (must include openid; email is needed for the account).',
    }),
    devIdp: Type.Union(
      ['auto', 'on', 'off'].map((mode) => Type.Literal(mode)),
      {
        default: 'auto',
        description:
          'In-process development identity provider at /dev-idp. auto: on the embedded SQLite default when no issuer is set.',
      },
    ),
    sessionIdleTimeout: Type.String({
      pattern: DURATION,
      default: '30m',
      description: 'A dashboard session ends after this long without a request.',
    }),
    sessionMaxAge: Type.String({
      pattern: DURATION,
      default: '12h',
      description: 'A dashboard session ends this long after sign-in, active or not.',
    }),
    tokensPerMinute: Type.Integer({
      minimum: 1,
      default: 10,
      description: 'Personal access tokens one user may generate per minute in the dashboard.',
    }),
  },
  { additionalProperties: false, default: {} },
);

export type DashboardConfig = Static<typeof DashboardConfigSchema>;

export const DASHBOARD_ENV: EnvMapping = {
  enabled: 'GATEWAY_DASHBOARD',
  issuer: 'GATEWAY_OIDC_ISSUER',
  clientId: 'GATEWAY_OIDC_CLIENT_ID',
  clientSecret: 'GATEWAY_OIDC_CLIENT_SECRET',
  scopes: 'GATEWAY_OIDC_SCOPES',
  devIdp: 'GATEWAY_DEV_IDP',
  sessionIdleTimeout: 'GATEWAY_SESSION_IDLE_TIMEOUT',
  sessionMaxAge: 'GATEWAY_SESSION_MAX_AGE',
  tokensPerMinute: 'GATEWAY_DASHBOARD_TOKENS_PER_MINUTE',
};

/** The two settings of the gateway config that decide where the dashboard's provider is. */
export interface DashboardSetting {
  readonly databaseUrl: string;
  readonly dashboard: DashboardConfig;
}

/** Whether the development identity provider runs in this process. */
export function devIdpEnabled(config: DashboardSetting): boolean {
  const { devIdp, issuer } = config.dashboard;
  if (devIdp === 'auto') return issuer === undefined && !isPostgresUrl(config.databaseUrl);
  return devIdp === 'on';
}

/**
 * Whether /dashboard is served: enabled and some identity provider to sign in with. Other
 * areas (the 401 hint) mention /dashboard only when this is true.
 */
export function dashboardEnabled(config: DashboardSetting): boolean {
  return config.dashboard.enabled && (config.dashboard.issuer !== undefined || devIdpEnabled(config));
}

function sessionDurationProblems(dashboard: DashboardConfig): string[] {
  const settings = [
    ['GATEWAY_SESSION_IDLE_TIMEOUT', dashboard.sessionIdleTimeout],
    ['GATEWAY_SESSION_MAX_AGE', dashboard.sessionMaxAge],
  ] as const;
  return settings
    .filter(([, value]) => !honouredDuration(value))
    .map(
      ([name, value]) =>
        `${name}=${value} is longer than a session can last (at most ${MAX_DURATION_DAYS}d).`,
    );
}

/** Why /dashboard is not served and what turns it on; undefined when it is served. */
export interface DashboardOff {
  readonly reason: string;
  readonly turnOn: string;
}

const SIGN_IN =
  'set GATEWAY_OIDC_ISSUER, GATEWAY_OIDC_CLIENT_ID and GATEWAY_OIDC_CLIENT_SECRET (docs/gateway/dashboard.md), ' +
  'or GATEWAY_DEV_IDP=on to try it with the development users (never in production)';

/**
 * The dashboard needs somewhere to sign in. On PostgreSQL (a real deployment) the development
 * provider, whose users and passwords are fixed, does not start on its own, so without an issuer
 * there is no dashboard: start-up and /dashboard say so, and what turns it on.
 */
export function dashboardOff(config: DashboardSetting): DashboardOff | undefined {
  if (dashboardEnabled(config)) return undefined;
  const { enabled, devIdp } = config.dashboard;
  const provider = config.dashboard.issuer !== undefined || devIdpEnabled(config);
  if (!enabled)
    return {
      reason: 'GATEWAY_DASHBOARD=false',
      turnOn: provider ? 'set GATEWAY_DASHBOARD=true' : `set GATEWAY_DASHBOARD=true and ${SIGN_IN}`,
    };
  return {
    reason:
      devIdp === 'off'
        ? 'no identity provider: GATEWAY_OIDC_ISSUER is not set and GATEWAY_DEV_IDP=off'
        : 'no identity provider: GATEWAY_OIDC_ISSUER is not set, and the development provider starts on its own only on the embedded SQLite database',
    turnOn: SIGN_IN,
  };
}

/** Configuration mistakes the schema cannot express; empty when the section is coherent. */
export function dashboardConfigProblems(config: DashboardSetting): string[] {
  const { issuer, clientId, clientSecret, devIdp } = config.dashboard;
  const problems = sessionDurationProblems(config.dashboard);
  if (issuer !== undefined && devIdp === 'on')
    problems.push('GATEWAY_DEV_IDP=on and GATEWAY_OIDC_ISSUER are exclusive: the dashboard signs in at one.');
  if (issuer !== undefined && (clientId === undefined || clientSecret === undefined))
    problems.push('GATEWAY_OIDC_ISSUER needs GATEWAY_OIDC_CLIENT_ID and GATEWAY_OIDC_CLIENT_SECRET.');
  return problems;
}
