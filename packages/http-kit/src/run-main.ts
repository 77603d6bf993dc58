import type { FastifyInstance } from 'fastify';
import { ConfigError } from './config.ts';

/**
 * Listens without Fastify's own "Server listening at" log line: the service's main prints one
 * "listening" line per service (with its docs URL) for the operator, and a second one per
 * interface in between would only repeat it.
 */
export async function listenQuietly(
  app: FastifyInstance,
  options: { host: string; port: number },
): Promise<string> {
  const level = app.log.level;
  app.log.level = 'warn';
  try {
    return await app.listen(options);
  } finally {
    app.log.level = level;
  }
}

/** Start-up failures print a clear message and exit non-zero; config errors without a stack. */
export async function runMain(start: () => Promise<void>): Promise<void> {
  try {
    await start();
  } catch (error) {
    if (error instanceof ConfigError) console.error(error.message);
    else console.error('start-up failed:', error instanceof Error ? error.message : error);
    process.exit(1);
  }
}
