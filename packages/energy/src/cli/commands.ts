/**
 * energyctl's commands. Each checks its arguments before the database is opened (`check`), so
 * wrong usage is answered at once and creates nothing, then does its work (`run`).
 */
import type { Kysely } from 'kysely';
import { issueToken, listTokens, listUsers, resetPassword, revokeTokens } from '../auth/admin.ts';
import { createUser, isEmail, MIN_PASSWORD_LENGTH } from '../auth/credentials.ts';
import type { EnergyDatabase } from '../db/schema.ts';

export class UsageError extends Error {}

export type Options = Readonly<Record<string, string | boolean | undefined>>;

export interface Command<Input = unknown> {
  check(options: Options, rest: readonly string[], stdin: () => Promise<string>): Promise<Input>;
  run(db: Kysely<EnergyDatabase>, input: Input, out: (line: string) => void): Promise<void>;
}

/** Lets each command keep its own input type while the table holds them all. */
const command = <Input>(spec: Command<Input>): Command => spec as Command;

function allowOnly(options: Options, rest: readonly string[], allowed: readonly string[], args = 0): void {
  for (const [name, value] of Object.entries(options))
    if (value !== undefined && !allowed.includes(name) && name !== 'create')
      throw new UsageError(`--${name} is not an option of this command`);
  if (rest.length > args) throw new UsageError(`unexpected argument '${rest[args]}'`);
}

function email(options: Options): string {
  const value = typeof options.email === 'string' ? options.email.trim() : '';
  if (!isEmail(value)) throw new UsageError('--email must be an email address');
  return value;
}

async function password(options: Options, stdin: () => Promise<string>): Promise<string> {
  if (options.password !== undefined && options['password-stdin'])
    throw new UsageError('give --password or --password-stdin, not both');
  // One trailing line break is the end of the input line, not part of the password.
  const value = options['password-stdin']
    ? (await stdin()).replace(/\r?\n$/, '')
    : typeof options.password === 'string'
      ? options.password
      : '';
  if (value.length < MIN_PASSWORD_LENGTH)
    throw new UsageError(`--password must have at least ${MIN_PASSWORD_LENGTH} characters`);
  return value;
}

const credentialsLine = (credentials: { user_id: number; token: string }) =>
  `{"user_id": ${credentials.user_id}, "token": ${JSON.stringify(credentials.token)}}`;

/** Rows as aligned columns for people, or one JSON array with --json for scripts. */
function show<T>(
  out: (line: string) => void,
  json: boolean,
  rows: readonly T[],
  columns: readonly (readonly [string, (row: T) => string])[],
): void {
  if (json) return out(JSON.stringify(rows, null, 2));
  const cells = [columns.map(([title]) => title), ...rows.map((row) => columns.map(([, cell]) => cell(row)))];
  const widths = columns.map((_, col) => Math.max(...cells.map((line) => (line[col] ?? '').length)));
  for (const line of cells)
    out(
      line
        .map((cell, col) => cell.padEnd(widths[col] ?? 0))
        .join('  ')
        .trimEnd(),
    );
}

export const COMMANDS: Readonly<Record<string, Command>> = {
  'users add': command({
    async check(options, rest, stdin) {
      allowOnly(options, rest, ['email', 'password', 'password-stdin']);
      return { email: email(options), password: await password(options, stdin) };
    },
    async run(db, input, out) {
      out(credentialsLine(await createUser(db, input.email, input.password)));
    },
  }),
  'users list': command({
    async check(options, rest) {
      allowOnly(options, rest, ['json']);
      return { json: options.json === true };
    },
    async run(db, input, out) {
      show(out, input.json, await listUsers(db), [
        ['ID', (user) => String(user.id)],
        ['EMAIL', (user) => user.email],
        ['TOKENS', (user) => String(user.tokens)],
        ['CREATED', (user) => user.created_at],
      ]);
    },
  }),
  'users reset-password': command({
    async check(options, rest, stdin) {
      allowOnly(options, rest, ['email', 'password', 'password-stdin', 'keep-tokens']);
      return {
        email: email(options),
        password: await password(options, stdin),
        keepTokens: options['keep-tokens'] === true,
      };
    },
    async run(db, input, out) {
      const reset = await resetPassword(db, input);
      out(`password of ${input.email.toLowerCase()} reset; ${reset.revokedTokens} token(s) revoked`);
    },
  }),
  'tokens issue': command({
    async check(options, rest) {
      allowOnly(options, rest, ['email']);
      return { email: email(options) };
    },
    async run(db, input, out) {
      out(credentialsLine(await issueToken(db, input.email)));
    },
  }),
  'tokens list': command({
    async check(options, rest) {
      allowOnly(options, rest, ['email', 'json']);
      return { email: email(options), json: options.json === true };
    },
    async run(db, input, out) {
      show(out, input.json, await listTokens(db, input.email), [
        ['ID', (token) => String(token.id)],
        ['CREATED', (token) => token.created_at],
      ]);
    },
  }),
  'tokens revoke': command({
    async check(options, rest) {
      allowOnly(options, rest, ['email', 'all'], 1);
      const [id] = rest;
      if (id !== undefined) {
        if (options.email !== undefined)
          throw new UsageError('give a token ID or --email with --all, not both');
        if (!/^\d+$/.test(id)) throw new UsageError(`a token ID is a whole number, got '${id}'`);
        return { id: Number(id) };
      }
      if (options.all !== true) throw new UsageError('give a token ID, or --email EMAIL --all');
      return { email: email(options) };
    },
    async run(db, input: { id: number } | { email: string }, out) {
      const revoked = await revokeTokens(db, input);
      out(
        'id' in input
          ? `revoked token ${input.id}`
          : `revoked ${revoked} token(s) of ${input.email.toLowerCase()}`,
      );
    },
  }),
};
