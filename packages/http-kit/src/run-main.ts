import { ConfigError } from './config.ts';

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
