/** The heavy half of gatewayctl: config, database, admin service. Loaded only for valid usage. */
import { DatabaseMissingError, DatabaseOwnerError, databaseNotice, openServiceDatabase } from '@app/db';
import { ConfigError } from '@app/http-kit';
import { AccessAdminError } from '../access/admin.ts';
import { loadGatewayConfig } from '../config.ts';
import { GATEWAY_DATABASE } from '../db/database.ts';
import type { GatewayDatabase } from '../db/schema.ts';
import { COMMANDS } from './commands.ts';
import type { Invocation } from './spec.ts';

/**
 * Runs a validated command; a refusal (bad input the database reveals, or a database that is
 * missing or not the gateway's) is a message, not a throw. Every command first says on stderr
 * which database it works on: a shell without the server's settings would otherwise write to
 * another database than the running gateway reads, silently.
 */
export async function runCommand(
  invocation: Invocation,
  env: NodeJS.ProcessEnv,
  io: { readonly out: (line: string) => void; readonly err: (line: string) => void },
  options: { readonly create: boolean },
): Promise<{ refused: string } | undefined> {
  const handler = COMMANDS[invocation.command];
  if (!handler) throw new Error(`no handler for ${invocation.command}`);
  try {
    const config = loadGatewayConfig(env);
    const database = await openServiceDatabase<GatewayDatabase>(GATEWAY_DATABASE, config, options);
    io.err(databaseNotice('gatewayctl', database));
    if (database.legacyNotice) io.err(`gatewayctl: note: ${database.legacyNotice}`);
    try {
      await handler({ config, database, print: io.out, warn: io.err }, invocation);
    } finally {
      await database.close();
    }
    return undefined;
  } catch (error) {
    if (error instanceof DatabaseMissingError)
      return { refused: `${error.message}, or pass --create to create a new, empty one there` };
    if (error instanceof AccessAdminError)
      return { refused: error.cliHint ? `${error.message} ${error.cliHint}` : error.message };
    if (error instanceof ConfigError || error instanceof DatabaseOwnerError)
      return { refused: error.message };
    throw error;
  }
}
