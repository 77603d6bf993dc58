/**
 * The operator's side of users and tokens (energyctl): list users, issue and revoke tokens,
 * reset a password. Tokens are stored only as hashes, so they are named by their row id.
 */
import type { Kysely } from 'kysely';
import type { EnergyDatabase } from '../db/schema.ts';
import { now } from '../repositories/records.ts';
import { usersRepository } from '../repositories/users.ts';
import { type Credentials, normalizeEmail } from './credentials.ts';
import { hashPassword } from './passwords.ts';
import { newToken } from './tokens.ts';

type Db = Kysely<EnergyDatabase>;

/** A refusal the operator can act on (unknown user or token); the CLI prints its message. */
export class AdminRefusal extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AdminRefusal';
  }
}

export interface UserListing {
  readonly id: number;
  readonly email: string;
  readonly tokens: number;
  readonly created_at: string;
  readonly updated_at: string;
}

export interface TokenListing {
  readonly id: number;
  readonly created_at: string;
}

async function userId(db: Db, email: string): Promise<number> {
  const row = await db
    .selectFrom('users')
    .select('id')
    .where('email', '=', normalizeEmail(email))
    .executeTakeFirst();
  if (!row) throw new AdminRefusal(`no user with email ${normalizeEmail(email)}`);
  return row.id;
}

export async function listUsers(db: Db): Promise<UserListing[]> {
  const rows = await db
    .selectFrom('users')
    .leftJoin('api_tokens', 'api_tokens.user_id', 'users.id')
    .select(['users.id', 'users.email', 'users.created_at', 'users.updated_at'])
    .select((eb) => eb.fn.count<number>('api_tokens.id').as('tokens'))
    .groupBy(['users.id', 'users.email', 'users.created_at', 'users.updated_at'])
    .orderBy('users.email')
    .execute();
  return rows.map((row) => ({ ...row, tokens: Number(row.tokens) }));
}

export async function listTokens(db: Db, email: string): Promise<TokenListing[]> {
  const owner = await userId(db, email);
  return db
    .selectFrom('api_tokens')
    .select(['id', 'created_at'])
    .where('user_id', '=', owner)
    .orderBy('id', 'desc')
    .execute();
}

/** A new token for an existing user, as signing in would give (the oldest beyond the cap retire). */
export async function issueToken(db: Db, email: string): Promise<Credentials> {
  const owner = await userId(db, email);
  const { token, hash } = newToken();
  await usersRepository(db).addToken(owner, hash);
  return { user_id: owner, token };
}

/** Revokes one token by id, or every token of a user; answers how many were revoked. */
export async function revokeTokens(db: Db, which: { id: number } | { email: string }): Promise<number> {
  if ('id' in which) {
    const deleted = await db.deleteFrom('api_tokens').where('id', '=', which.id).executeTakeFirst();
    if (Number(deleted.numDeletedRows) === 0) throw new AdminRefusal(`no token with id ${which.id}`);
    return 1;
  }
  const owner = await userId(db, which.email);
  const deleted = await db.deleteFrom('api_tokens').where('user_id', '=', owner).executeTakeFirst();
  return Number(deleted.numDeletedRows);
}

/**
 * Sets a new password. A reset usually follows a leak, so the user's tokens are revoked with it
 * unless `keepTokens`: whoever had the old password may have signed in with it.
 */
export async function resetPassword(
  db: Db,
  input: { email: string; password: string; keepTokens: boolean },
): Promise<{ user_id: number; revokedTokens: number }> {
  const owner = await userId(db, input.email);
  const passwordHash = await hashPassword(input.password);
  return db.transaction().execute(async (trx) => {
    await trx
      .updateTable('users')
      .set({ password_hash: passwordHash, updated_at: now() })
      .where('id', '=', owner)
      .execute();
    if (input.keepTokens) return { user_id: owner, revokedTokens: 0 };
    const deleted = await trx.deleteFrom('api_tokens').where('user_id', '=', owner).executeTakeFirst();
    return { user_id: owner, revokedTokens: Number(deleted.numDeletedRows) };
  });
}
