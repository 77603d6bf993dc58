import type { Kysely } from 'kysely';
import type { TokenCache } from '../auth/token-cache.ts';
import type { EnergyDatabase } from '../db/schema.ts';
import { prepared } from './prepared.ts';
import { now } from './records.ts';

type Db = Kysely<EnergyDatabase>;

/** Tokens kept per user; authenticating again beyond this retires the oldest. */
export const TOKENS_PER_USER = 10;

export class DuplicateEmailError extends Error {
  constructor() {
    super('A user with this email already exists.');
    this.name = 'DuplicateEmailError';
  }
}

/** `cache`: the process's token cache (routes); absent, every lookup reads the database (CLI). */
export function usersRepository(db: Db, cache?: TokenCache) {
  const tokenOwner = prepared(
    db,
    db.selectFrom('api_tokens').select('user_id').where('token_hash', '=', ''),
    1,
  );
  return {
    async create(email: string, passwordHash: string): Promise<number> {
      const existing = await db
        .selectFrom('users')
        .select('id')
        .where('email', '=', email)
        .executeTakeFirst();
      if (existing) throw new DuplicateEmailError();
      const stamp = now();
      const row = await db
        .insertInto('users')
        .values({ email, password_hash: passwordHash, created_at: stamp, updated_at: stamp })
        .returning('id')
        .executeTakeFirstOrThrow();
      return row.id;
    },
    findByEmail(email: string) {
      return db
        .selectFrom('users')
        .select(['id', 'password_hash'])
        .where('email', '=', email)
        .executeTakeFirst();
    },
    async addToken(userId: number, tokenHash: string): Promise<void> {
      await db
        .insertInto('api_tokens')
        .values({ user_id: userId, token_hash: tokenHash, created_at: now() })
        .execute();
      const keep = db
        .selectFrom('api_tokens')
        .select('id')
        .where('user_id', '=', userId)
        .orderBy('id', 'desc')
        .limit(TOKENS_PER_USER);
      const retired = await db
        .deleteFrom('api_tokens')
        .where('user_id', '=', userId)
        .where('id', 'not in', keep)
        .returning('token_hash')
        .execute();
      // A retired token stops working in this process now, not when its cache entry expires.
      cache?.forget(retired.map((row) => row.token_hash));
    },
    /** The owner of a token remembered by the cache: no database read, no promise. */
    cachedUserIdForToken(tokenHash: string): number | undefined {
      return cache?.userIdFor(tokenHash);
    },
    async userIdForToken(tokenHash: string): Promise<number | undefined> {
      const cached = cache?.userIdFor(tokenHash);
      if (cached !== undefined) return cached;
      const generation = cache?.generation() ?? 0;
      const [row] = await tokenOwner(tokenHash);
      if (row) cache?.remember(tokenHash, row.user_id, generation);
      return row?.user_id;
    },
  };
}

export type UsersRepository = ReturnType<typeof usersRepository>;
