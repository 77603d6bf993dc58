/**
 * The development identity provider's users: a few fixed accounts whose passwords are generated
 * on first start and kept in `<dataDir>/dev-idp-users.json` (owner-only), so they survive
 * restarts and `npm start` can print them. `demo@example.com` is the email of the demo account
 * the gateway seeds, so signing in as it reaches that account (gateway and project admin).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface DevUser {
  readonly subject: string;
  readonly email: string;
  readonly name: string;
  readonly password: string;
}

const ACCOUNTS = [
  { subject: 'dev-demo', email: 'demo@example.com', name: 'Demo Admin' },
  { subject: 'dev-alice', email: 'alice@example.com', name: 'Alice Developer' },
  { subject: 'dev-bob', email: 'bob@example.com', name: 'Bob Developer' },
] as const;

export const DEV_USERS_FILE = 'dev-idp-users.json';

function isDevUser(value: unknown): value is DevUser {
  if (value === null || typeof value !== 'object') return false;
  const user = value as Record<string, unknown>;
  return ['subject', 'email', 'name', 'password'].every((key) => typeof user[key] === 'string');
}

/** Reads the users file, creating it with fresh passwords when absent. */
export function loadDevUsers(dataDir: string): readonly DevUser[] {
  const file = join(dataDir, DEV_USERS_FILE);
  if (existsSync(file)) {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (Array.isArray(parsed) && parsed.length > 0 && parsed.every(isDevUser)) return parsed;
    throw new Error(`${file} is not a list of development users; delete it to generate a new one`);
  }
  const users = ACCOUNTS.map((account) => ({ ...account, password: randomBytes(12).toString('base64url') }));
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, `${JSON.stringify(users, null, 2)}\n`, { mode: 0o600 });
  return users;
}

/** The user whose email and password match, compared in constant time. */
export function checkPassword(
  users: readonly DevUser[],
  email: string,
  password: string,
): DevUser | undefined {
  const user = users.find((candidate) => candidate.email === email.trim().toLowerCase());
  if (!user) return undefined;
  const expected = Buffer.from(user.password);
  const given = Buffer.from(password);
  return expected.length === given.length && timingSafeEqual(expected, given) ? user : undefined;
}
