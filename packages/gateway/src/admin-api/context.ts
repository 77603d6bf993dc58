/** What every route file of the admin API shares: the app type, its dependencies, who is acting. */
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type {
  FastifyBaseLogger,
  FastifyInstance,
  FastifyRequest,
  RawReplyDefaultExpression,
  RawRequestDefaultExpression,
  RawServerDefault,
} from 'fastify';
import type { Actor, Db, TokenPolicy } from '../access/admin.ts';
import type { AuthenticateAdmin } from '../access/admin-auth.ts';
import type { SigningKeys } from '../access/keys.ts';
import type { AdminScope } from '../db/schema.ts';

export type AdminApp = FastifyInstance<
  RawServerDefault,
  RawRequestDefaultExpression,
  RawReplyDefaultExpression,
  FastifyBaseLogger,
  TypeBoxTypeProvider
>;

export interface AdminApiDeps {
  readonly db: Db;
  readonly authenticate: AuthenticateAdmin;
  /** Issuing and revoking tokens as gatewayctl and the dashboard do. */
  readonly tokens: {
    readonly keys: SigningKeys;
    readonly policy: TokenPolicy;
    /** After a revocation: this instance forgets cached token state now, the others via Redis. */
    announceRevocation(what: string): Promise<void>;
  };
}

export interface AdminContext extends AdminApiDeps {
  /** The admin key that authenticated `request`, as the audit trail names it. */
  actorOf(request: FastifyRequest): Actor;
}

/** The scope a request needs: reading for GET (and HEAD), writing for everything else. */
export function scopeOf(method: string): AdminScope {
  return method === 'GET' || method === 'HEAD' ? 'read' : 'write';
}

/** The OpenAPI tag and security of a route with this method (OpenAPI 3.1 names the scope as a role). */
export function secured(method: 'GET' | 'POST' | 'PUT' | 'DELETE') {
  return { tags: ['admin'], security: [{ adminKey: [scopeOf(method)] }] };
}

export const ADMIN_API_PREFIX = '/admin/v1';

/** The URL of a resource for a 201's Location: the prefix and each segment escaped. */
export function locationOf(...segments: readonly (string | number)[]): string {
  return [ADMIN_API_PREFIX, ...segments.map((segment) => encodeURIComponent(String(segment)))].join('/');
}

/** The one row of a listing narrowed to one existing name (the listing refuses unknown names). */
export function single<T>(rows: readonly T[]): T {
  const [row] = rows;
  if (row === undefined || rows.length > 1) throw new Error(`expected one row, got ${rows.length}`);
  return row;
}
