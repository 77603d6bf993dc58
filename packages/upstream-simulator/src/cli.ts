/**
 * Runs the simulator on its own: `node packages/upstream-simulator/src/cli.ts [--port 4010]
 * [--host 127.0.0.1] [--token-delay-ms 20] [--first-token-delay-ms 200] [--reply-tokens 16]`.
 * Environment: SIMULATOR_PORT, SIMULATOR_HOST, SIMULATOR_TOKEN_DELAY_MS,
 * SIMULATOR_FIRST_TOKEN_DELAY_MS, SIMULATOR_REPLY_TOKENS (flags win).
 */
import { parseArgs } from 'node:util';
import { startSimulator } from './server.ts';

function integer(name: string, value: string | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const number = Number(value);
  if (!Number.isInteger(number) || number < 0)
    throw new Error(`${name} must be a non-negative integer, got ${value}`);
  return number;
}

const { values } = parseArgs({
  options: {
    port: { type: 'string' },
    host: { type: 'string' },
    'token-delay-ms': { type: 'string' },
    'first-token-delay-ms': { type: 'string' },
    'reply-tokens': { type: 'string' },
  },
});
const env = process.env;
const tokenDelayMs = integer('token-delay-ms', values['token-delay-ms'] ?? env.SIMULATOR_TOKEN_DELAY_MS);
const firstTokenDelayMs = integer(
  'first-token-delay-ms',
  values['first-token-delay-ms'] ?? env.SIMULATOR_FIRST_TOKEN_DELAY_MS,
);
const replyTokens = integer('reply-tokens', values['reply-tokens'] ?? env.SIMULATOR_REPLY_TOKENS);
const simulator = await startSimulator({
  host: values.host ?? env.SIMULATOR_HOST ?? '127.0.0.1',
  port: integer('port', values.port ?? env.SIMULATOR_PORT) ?? 4010,
  behaviour: {
    ...(tokenDelayMs === undefined ? {} : { tokenDelayMs }),
    ...(firstTokenDelayMs === undefined ? {} : { firstTokenDelayMs }),
    ...(replyTokens === undefined ? {} : { replyTokens }),
  },
});
console.log(`upstream simulator listening on ${simulator.baseUrl}`);
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void simulator.close().then(() => process.exit(0)));
}
