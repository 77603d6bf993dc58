/**
 * Users who sign in through an OpenID Connect provider. A user is found by (issuer, subject),
 * never by email alone: emails change and can be reused. An account created by an operator
 * (gatewayctl, the demo seed) is linked on its first sign-in only when the provider vouches
 * for the email (`email_verified`), so a pre-created admin keeps its rights.
 */
import { addUser, type Db, findUser, nowIso, type User } from './admin.ts';
import { AccessAdminError } from './admin-errors.ts';

export interface SignInIdentity {
  readonly issuer: string;
  readonly subject: string;
  readonly email: string;
  readonly emailVerified: boolean;
}

function toUser(row: { id: number; email: string; is_admin: number }): User {
  return { id: row.id, email: row.email, isAdmin: row.is_admin === 1 };
}

export async function userById(db: Db, id: number): Promise<User | undefined> {
  const row = await db.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst();
  return row ? toUser(row) : undefined;
}

/** Keeps the account's email in step with the provider, unless another account holds it. */
async function refreshEmail(db: Db, user: User, identity: SignInIdentity): Promise<User> {
  const email = identity.email.trim().toLowerCase();
  const now = nowIso();
  await db
    .updateTable('user_identities')
    .set({ email, last_sign_in_at: now })
    .where('issuer', '=', identity.issuer)
    .where('subject', '=', identity.subject)
    .execute();
  if (email === user.email) return user;
  const holder = await db.selectFrom('users').select('id').where('email', '=', email).executeTakeFirst();
  if (holder) return user;
  await db.updateTable('users').set({ email }).where('id', '=', user.id).execute();
  return { ...user, email };
}

async function linkedUser(db: Db, identity: SignInIdentity): Promise<User> {
  const existing = await findUser(db, identity.email).catch((error: unknown) => {
    if (error instanceof AccessAdminError && error.code === 'unknown_user') return undefined;
    throw error;
  });
  // The trail names who created the account: its first sign-in, at this provider.
  const actor = { userId: null, label: `first sign-in at ${identity.issuer}` };
  if (!existing) return addUser(db, { email: identity.email, actor });
  const other = await db
    .selectFrom('user_identities')
    .select('subject')
    .where('user_id', '=', existing.id)
    .where('issuer', '=', identity.issuer)
    .executeTakeFirst();
  if (!identity.emailVerified || other)
    throw new AccessAdminError(
      'duplicate_user',
      `An account with email ${existing.email} already exists and the identity provider did not confirm this email belongs to you. Ask an operator to link the accounts.`,
    );
  return existing;
}

/** The user behind a verified sign-in: found, linked by verified email, or created. */
export async function signInWithIdentity(db: Db, identity: SignInIdentity): Promise<User> {
  const row = await db
    .selectFrom('user_identities')
    .innerJoin('users', 'users.id', 'user_identities.user_id')
    .select(['users.id', 'users.email', 'users.is_admin'])
    .where('issuer', '=', identity.issuer)
    .where('subject', '=', identity.subject)
    .executeTakeFirst();
  if (row) return refreshEmail(db, toUser(row), identity);
  const user = await linkedUser(db, identity);
  const now = nowIso();
  await db
    .insertInto('user_identities')
    .values({
      issuer: identity.issuer,
      subject: identity.subject,
      user_id: user.id,
      email: identity.email.trim().toLowerCase(),
      created_at: now,
      last_sign_in_at: now,
    })
    .execute();
  return user;
}
