import { parseArgs } from 'node:util';
import { DatabaseMissingError, DatabaseOwnerError, databaseNotice, openServiceDatabase } from '@app/db';
import { ConfigError } from '@app/http-kit';
import { createUser, isEmail, MIN_PASSWORD_LENGTH } from '../auth/credentials.ts';
import { loadEnergyConfig } from '../config.ts';
import { ENERGY_DATABASE } from '../db/database.ts';
import type { EnergyDatabase } from '../db/schema.ts';
import { DuplicateEmailError } from '../repositories/users.ts';

const USAGE = `usage: energyctl users add --email EMAIL (--password PASSWORD | --password-stdin) [--create]

--password-stdin reads the password from standard input, so it stays out of the process list
and the shell history. Creates a user of the energy asset service in the database named by ENERGY_DATABASE_URL
(default sqlite:./data/energy.db) and ENERGY_DATABASE_SCHEMA (PostgreSQL), and prints
{"user_id": N, "token": "..."}. The database used is named on stderr. Where the service has no
database yet (no SQLite file, no schema) the command refuses, unless given --create.`;

class UsageError extends Error {}

async function readUserArgs(
  argv: readonly string[],
  stdin: () => Promise<string>,
): Promise<{ email: string; password: string; create: boolean }> {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      create: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
  });
  if (values.help || positionals[0] !== 'users' || positionals[1] !== 'add' || positionals.length !== 2) {
    throw new UsageError(USAGE);
  }
  if (values.password !== undefined && values['password-stdin']) {
    throw new UsageError('energyctl: give --password or --password-stdin, not both');
  }
  const email = values.email?.trim() ?? '';
  // One trailing line break is the end of the input line, not part of the password.
  const password = values['password-stdin'] ? (await stdin()).replace(/\r?\n$/, '') : (values.password ?? '');
  if (!isEmail(email)) throw new UsageError('energyctl: --email must be an email address');
  if (password.length < MIN_PASSWORD_LENGTH) {
    throw new UsageError(`energyctl: --password must have at least ${MIN_PASSWORD_LENGTH} characters`);
  }
  return { email, password, create: values.create === true };
}

/** Runs the command; returns the exit code. Output goes to the given writers (tests pass their own). */
export async function energyctl(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  out: (line: string) => void,
  err: (line: string) => void,
  stdin: () => Promise<string> = readStdin,
): Promise<number> {
  try {
    const { email, password, create } = await readUserArgs(argv, stdin);
    const config = loadEnergyConfig(env);
    const database = await openServiceDatabase<EnergyDatabase>(ENERGY_DATABASE, config, { create });
    // Named on every run: a shell without the service's settings would otherwise write elsewhere unseen.
    err(databaseNotice('energyctl', database));
    if (database.legacyNotice) err(`energyctl: note: ${database.legacyNotice}`);
    try {
      const credentials = await createUser(database.db, email, password);
      out(`{"user_id": ${credentials.user_id}, "token": ${JSON.stringify(credentials.token)}}`);
      return 0;
    } finally {
      await database.close();
    }
  } catch (error) {
    if (error instanceof UsageError) err(error.message);
    else if (error instanceof DatabaseMissingError)
      err(`energyctl: ${error.message}, or pass --create to create a new, empty one there`);
    else if (
      error instanceof ConfigError ||
      error instanceof DuplicateEmailError ||
      error instanceof DatabaseOwnerError
    )
      err(`energyctl: ${error.message}`);
    else err(`energyctl: failed: ${error instanceof Error ? error.message : String(error)}`);
    return error instanceof UsageError ? 2 : 1;
  }
}

async function readStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  return text;
}

if (import.meta.main) {
  process.exitCode = await energyctl(process.argv.slice(2), process.env, console.log, console.error);
}
