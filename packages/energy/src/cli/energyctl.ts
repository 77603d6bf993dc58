import { parseArgs } from 'node:util';
import { DatabaseMissingError, DatabaseOwnerError, databaseNotice, openServiceDatabase } from '@app/db';
import { ConfigError } from '@app/http-kit';
import { AdminRefusal } from '../auth/admin.ts';
import { loadEnergyConfig } from '../config.ts';
import { ENERGY_DATABASE } from '../db/database.ts';
import type { EnergyDatabase } from '../db/schema.ts';
import { DuplicateEmailError } from '../repositories/users.ts';
import { type Command, COMMANDS, type Options, UsageError } from './commands.ts';

const USAGE = `usage: energyctl COMMAND [options]

  energyctl users add --email EMAIL (--password PASSWORD | --password-stdin) [--create]
      a user and its first API token: prints {"user_id": N, "token": "..."}
  energyctl users list [--json]
      every user: id, email, live tokens, created
  energyctl users reset-password --email EMAIL (--password PASSWORD | --password-stdin) [--keep-tokens]
      a new password; the user's tokens are revoked with it unless --keep-tokens
  energyctl tokens issue --email EMAIL
      a new API token for an existing user: prints {"user_id": N, "token": "..."}
  energyctl tokens list --email EMAIL [--json]
      the user's tokens by id (the tokens themselves are stored only as hashes)
  energyctl tokens revoke ID | energyctl tokens revoke --email EMAIL --all
      one token, or every token of a user

--password-stdin reads the password from standard input, so it stays out of the process list
and the shell history. The database is the one named by ENERGY_DATABASE_URL (default
sqlite:./data/energy.db) and ENERGY_DATABASE_SCHEMA (PostgreSQL), as for the service, and is
named on stderr. Where the service has no database yet (no SQLite file, no schema) a command
refuses, unless given --create. A revoked token stops working within ENERGY_TOKEN_CACHE_TTL_MS
(2 s by default) on every running instance.

Exit status: 0 done, 1 refused (unknown user or token, taken email, configuration), 2 wrong usage.`;

function parse(argv: readonly string[]): {
  name: string;
  command: Command;
  options: Options;
  rest: string[];
} {
  const { values, positionals } = parseArgs({
    args: [...argv],
    options: {
      email: { type: 'string' },
      password: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      'keep-tokens': { type: 'boolean' },
      all: { type: 'boolean' },
      json: { type: 'boolean' },
      create: { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
    allowPositionals: true,
  });
  const name = positionals.slice(0, 2).join(' ');
  const command = COMMANDS[name];
  if (!command)
    throw new UsageError(positionals.length === 0 ? USAGE : `unknown command '${name}'\n\n${USAGE}`);
  const { help: _help, ...options } = values;
  return { name, command, options, rest: positionals.slice(2) };
}

function wantsHelp(argv: readonly string[]): boolean {
  return argv.includes('--help') || argv.includes('-h') || (argv.length === 1 && argv[0] === 'help');
}

/** Runs the command; returns the exit code. Output goes to the given writers (tests pass their own). */
export async function energyctl(
  argv: readonly string[],
  env: NodeJS.ProcessEnv,
  out: (line: string) => void,
  err: (line: string) => void,
  stdin: () => Promise<string> = readStdin,
): Promise<number> {
  if (wantsHelp(argv)) {
    out(USAGE);
    return 0;
  }
  try {
    const { command, options, rest } = parse(argv);
    const input = await command.check(options, rest, stdin);
    const config = loadEnergyConfig(env);
    const database = await openServiceDatabase<EnergyDatabase>(ENERGY_DATABASE, config, {
      create: options.create === true,
    });
    // Named on every run: a shell without the service's settings would otherwise write elsewhere unseen.
    err(databaseNotice('energyctl', database));
    if (database.legacyNotice) err(`energyctl: note: ${database.legacyNotice}`);
    try {
      await command.run(database.db, input, out);
      return 0;
    } finally {
      await database.close();
    }
  } catch (error) {
    return report(error, err);
  }
}

function report(error: unknown, err: (line: string) => void): number {
  if (error instanceof UsageError) {
    err(error.message.startsWith('usage:') ? error.message : `energyctl: ${error.message}`);
    return 2;
  }
  // parseArgs' own refusals (unknown option, missing value) are wrong usage too.
  if (error instanceof TypeError && 'code' in error && String(error.code).startsWith('ERR_PARSE_ARGS')) {
    err(`energyctl: ${error.message}. Run 'energyctl --help' for usage.`);
    return 2;
  }
  if (error instanceof DatabaseMissingError)
    err(`energyctl: ${error.message}, or pass --create to create a new, empty one there`);
  else if (
    error instanceof ConfigError ||
    error instanceof DuplicateEmailError ||
    error instanceof DatabaseOwnerError ||
    error instanceof AdminRefusal
  )
    err(`energyctl: ${error.message}`);
  else err(`energyctl: failed: ${error instanceof Error ? error.message : String(error)}`);
  return 1;
}

async function readStdin(): Promise<string> {
  let text = '';
  for await (const chunk of process.stdin) text += String(chunk);
  return text;
}

if (import.meta.main) {
  process.exitCode = await energyctl(process.argv.slice(2), process.env, console.log, console.error);
}
