import type { FastifyRequest } from 'fastify';
import { energyErrors } from '../errors.ts';
import { isPlainObject } from '../input/params.ts';
import type { UsersRepository } from '../repositories/users.ts';
import { hashToken, tokenFromAuthorization } from './tokens.ts';

const users = new WeakMap<FastifyRequest, number>();

function first(value: unknown): unknown {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * The token of a call: the Authorization header, else the `token` query parameter, else a
 * `token` body parameter (the reference service read it from params). The first one present
 * is the one checked; a wrong one is not rescued by another.
 */
export function tokenOf(request: FastifyRequest): string | undefined {
  const header = tokenFromAuthorization(request.headers.authorization);
  if (header) return header;
  const query = isPlainObject(request.query) ? first(request.query.token) : undefined;
  if (typeof query === 'string' && query !== '') return query;
  const body = isPlainObject(request.body) ? first(request.body.token) : undefined;
  if (typeof body === 'string' && body !== '') return body;
  return undefined;
}

/**
 * For a preHandler: resolves the token to its user, or calls back with the 401, before the
 * route runs. Callback style, and synchronous when the token cache knows the token: most
 * calls then cost no promise.
 */
export function requireUser(repository: UsersRepository) {
  return (request: FastifyRequest, done: (error?: Error) => void): void => {
    const token = tokenOf(request);
    if (token === undefined) return done(energyErrors.create('unauthorized', {}));
    const tokenHash = hashToken(token);
    const accept = (userId: number | undefined): void => {
      if (userId === undefined) return done(energyErrors.create('unauthorized', {}));
      users.set(request, userId);
      done();
    };
    const cached = repository.cachedUserIdForToken(tokenHash);
    if (cached !== undefined) accept(cached);
    else repository.userIdForToken(tokenHash).then(accept, done);
  };
}

/** The authenticated user of a request that went through requireUser. */
export function userIdOf(request: FastifyRequest): number {
  const userId = users.get(request);
  if (userId === undefined) throw energyErrors.create('unauthorized', {});
  return userId;
}
