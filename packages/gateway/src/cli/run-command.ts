/** The heavy half of gatewayctl: config, database, admin service. Loaded only for valid usage. */
import { migrateToLatest, newDatabaseNotice, openDatabase } from '@app/db';
import { ConfigError } from '@app/http-kit';
import { AccessAdminError } from '../access/admin.ts';
import { loadGatewayConfig } from '../config.ts';
import { gatewayMigrations } from '../db/migrations.ts';
import type { GatewayDatabase } from '../db/schema.ts';
import { COMMANDS } from './commands.ts';
import type { Invocation } from './spec.ts';

/** Runs a validated command; a refusal (bad input the database reveals) is a message, not a throw. */
export async function runCommand(
  invocation: Invocation,
  env: NodeJS.ProcessEnv,
  io: { readonly out: (line: string) => void; readonly err: (line: string) => void },
): Promise<{ refused: string } | undefined> {
  const handler = COMMANDS[invocation.command];
  if (!handler) throw new Error(`no handler for ${invocation.command}`);
  try {
    const config = loadGatewayConfig(env);
    const database = await openDatabase<GatewayDatabase>(config.databaseUrl);
    if (database.created) io.err(newDatabaseNotice('gatewayctl', 'GATEWAY_DATABASE_URL', config.databaseUrl));
    try {
      await migrateToLatest(database.db, gatewayMigrations);
      await handler({ config, database, print: io.out, warn: io.err }, invocation);
    } finally {
      await database.close();
    }
    return undefined;
  } catch (error) {
    if (error instanceof AccessAdminError)
      return { refused: error.cliHint ? `${error.message} ${error.cliHint}` : error.message };
    if (error instanceof ConfigError) return { refused: error.message };
    throw error;
  }
}
