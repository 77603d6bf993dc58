/** What every dashboard route shares: the database, sessions, sign-in, token operations. */
import type { Redis } from '@app/db';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Kysely } from 'kysely';
import type { User } from '../access/admin.ts';
import type { WebhookPolicy } from '../alerts/config.ts';
import type { TokenPolicy } from '../access/admin-tokens.ts';
import type { SigningKeys } from '../access/keys.ts';
import type { Ledger } from '../contracts.ts';
import type { GatewayDatabase } from '../db/schema.ts';
import type { OidcClient } from './oidc-client.ts';
import type { Session, SessionStore } from './session.ts';

export interface DashboardContext {
  readonly db: Kysely<GatewayDatabase>;
  readonly sessions: SessionStore;
  readonly oidc: OidcClient;
  readonly tokens: {
    readonly keys: SigningKeys;
    readonly policy: TokenPolicy;
    announceRevocation(what: string): Promise<void>;
  };
  /** The budget ledger's balances: the figures GET /v1/account shows, with this instance's requests in flight. */
  readonly ledger: Pick<Ledger, 'balances'>;
  /** The gateway's public base URL, without a trailing slash. */
  readonly publicBase: () => string;
  /** Cookies get `Secure` when the public URL is https. */
  readonly secureCookies: boolean;
  readonly tokensPerMinute: number;
  readonly sessionMaxAgeMs: number;
  readonly redis?: Redis;
  /**
   * Which webhook URLs of budget alerts are accepted (GATEWAY_ALERT_WEBHOOK_ALLOW_HTTP and
   * _ALLOW_PRIVATE): the policy gatewayctl checks them with, so both accept the same URLs.
   */
  readonly alertWebhooks: WebhookPolicy;
}

export const COOKIES = {
  session: 'gw_session',
  login: 'gw_login',
  /** The token just generated, for the one page that shows it (then cleared). */
  flash: 'gw_new_token',
  csrf: 'gw_csrf',
} as const;

export const BASE = '/dashboard';

/** A page-level refusal with its HTTP status; the message is shown to the user. */
export class DashboardError extends Error {
  readonly status: number;
  constructor(status: number, message: string) {
    super(message);
    this.name = 'DashboardError';
    this.status = status;
  }
}

export function notFound(): DashboardError {
  return new DashboardError(404, 'There is no such page, or it is not yours to see.');
}

export interface Viewer {
  readonly session: Session;
  readonly user: User;
}

const viewers = new WeakMap<FastifyRequest, Viewer>();

export function setViewer(request: FastifyRequest, viewer: Viewer): void {
  viewers.set(request, viewer);
}

export function viewerOf(request: FastifyRequest): Viewer | undefined {
  return viewers.get(request);
}

/** The signed-in user; routes behind sign-in call this (the hook has redirected the others). */
export function requireViewer(request: FastifyRequest): Viewer {
  const viewer = viewers.get(request);
  if (!viewer) throw new DashboardError(401, 'Sign in to continue.');
  return viewer;
}

export function cookieOptions(ctx: DashboardContext, maxAgeSeconds?: number) {
  return {
    path: BASE,
    httpOnly: true,
    sameSite: 'lax' as const,
    secure: ctx.secureCookies,
    ...(maxAgeSeconds === undefined ? {} : { maxAge: maxAgeSeconds }),
  };
}

/** An anti-forgery token for the forms of the page being rendered. */
export function csrfTokenFor(reply: FastifyReply): string {
  return reply.generateCsrf();
}

/** The form field as a string (absent or repeated fields read as empty). */
export function field(body: unknown, name: string): string {
  if (body === null || typeof body !== 'object') return '';
  const value = (body as Record<string, unknown>)[name];
  return typeof value === 'string' ? value : '';
}
