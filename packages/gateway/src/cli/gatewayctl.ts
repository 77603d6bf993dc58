/**
 * gatewayctl: the operator command. Loads configuration exactly like the server
 * (loadGatewayConfig over the environment), opens the same database (never a new one without
 * --create), runs pending migrations, and calls the shared admin service (access/admin.ts). Exit 0 done, 1 refused, 2 wrong usage.
 * Usage is checked before the heavy modules load, so mistakes are answered instantly.
 */
import { parseArgs } from 'node:util';
import { HELP } from './help.ts';
import { UsageError, validate } from './spec.ts';

export interface Io {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
}

const CONSOLE: Io = { out: (line) => console.log(line), err: (line) => console.error(line) };

function parse(argv: readonly string[]) {
  try {
    return parseArgs({
      args: [...argv],
      allowPositionals: true,
      strict: true,
      options: {
        help: { type: 'boolean', short: 'h' },
        create: { type: 'boolean' },
        email: { type: 'string' },
        admin: { type: 'boolean' },
        json: { type: 'boolean' },
        project: { type: 'string' },
        ttl: { type: 'string' },
        description: { type: 'string' },
        scopes: { type: 'string' },
        'ip-allow': { type: 'string' },
        rpm: { type: 'string' },
        tpm: { type: 'string' },
        concurrency: { type: 'string' },
        thresholds: { type: 'string' },
        webhook: { type: 'string' },
        since: { type: 'string' },
        until: { type: 'string' },
        by: { type: 'string' },
        csv: { type: 'boolean' },
      },
    });
  } catch (error) {
    throw new UsageError(error instanceof Error ? error.message : String(error));
  }
}

async function run(argv: readonly string[], env: NodeJS.ProcessEnv, io: Io): Promise<number> {
  const { positionals, values } = parse(argv);
  if (values.help) {
    io.out(HELP);
    return 0;
  }
  if (positionals.length === 0) {
    io.err(HELP);
    return 2;
  }
  const { help: _help, create, ...options } = values;
  const invocation = validate(positionals, options);
  const { runCommand } = await import('./run-command.ts');
  const outcome = await runCommand(invocation, env, io, { create: create === true });
  if (!outcome) return 0;
  io.err(`gatewayctl: ${outcome.refused}`);
  return 1;
}

/** Runs one command and returns the exit status (instead of exiting). */
export async function main(argv: readonly string[], env: NodeJS.ProcessEnv = process.env, io: Io = CONSOLE) {
  try {
    return await run(argv, env, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.err(`gatewayctl: ${error.message}. Run 'gatewayctl --help' for usage.`);
      return 2;
    }
    io.err(`gatewayctl: failed: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  }
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2));
