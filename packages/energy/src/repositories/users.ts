import type { Kysely } from 'kysely';
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

export function usersRepository(db: Db) {
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
      await db.deleteFrom('api_tokens').where('user_id', '=', userId).where('id', 'not in', keep).execute();
    },
    async userIdForToken(tokenHash: string): Promise<number | undefined> {
      const [row] = await tokenOwner(tokenHash);
      return row?.user_id;
    },
  };
}

export type UsersRepository = ReturnType<typeof usersRepository>;
