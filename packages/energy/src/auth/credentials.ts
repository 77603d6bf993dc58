import type { Kysely } from 'kysely';
import type { EnergyDatabase } from '../db/schema.ts';
import { type UsersRepository, usersRepository } from '../repositories/users.ts';
import { DECOY_HASH_PROMISE, hashPassword, verifyPassword } from './passwords.ts';
import { newToken } from './tokens.ts';

/** What the CLI prints and `POST /users/authenticate` answers; the token is shown only here. */
export interface Credentials {
  readonly user_id: number;
  readonly token: string;
}

export const MIN_PASSWORD_LENGTH = 8;

export function normalizeEmail(email: string): string {
  return email.trim().toLowerCase();
}

export function isEmail(email: string): boolean {
  return /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email) && email.length <= 254;
}

async function issueToken(users: UsersRepository, userId: number): Promise<Credentials> {
  const { token, hash } = newToken();
  await users.addToken(userId, hash);
  return { user_id: userId, token };
}

/** Creates a user (the admin command); throws DuplicateEmailError when the email is taken. */
export async function createUser(
  db: Kysely<EnergyDatabase>,
  email: string,
  password: string,
): Promise<Credentials> {
  const users = usersRepository(db);
  const id = await users.create(normalizeEmail(email), await hashPassword(password));
  return issueToken(users, id);
}

/**
 * A fresh token for a correct email and password; undefined otherwise, in the same time. Takes
 * the routes' repository, so the tokens it retires leave that repository's token cache at once.
 */
export async function authenticate(
  users: UsersRepository,
  email: string,
  password: string,
): Promise<Credentials | undefined> {
  const user = await users.findByEmail(normalizeEmail(email));
  const matches = await verifyPassword(password, user?.password_hash ?? (await DECOY_HASH_PROMISE));
  return user && matches ? issueToken(users, user.id) : undefined;
}
