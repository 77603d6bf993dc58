import { closeOnSignals, listenQuietly, runMain } from '@app/http-kit';
import { buildApp } from './app.ts';
import { type EnergyConfig, loadEnergyConfig } from './config.ts';

export interface Started {
  readonly url: string;
  readonly drainDeadlineMs: number;
  /** What an operator reads at start: where it listens, its docs, how to get a token. */
  readonly banner: readonly string[];
  close(): Promise<void>;
}

/** Built and validated (database opened, migrations run), not yet listening. */
export interface Prepared {
  listen(): Promise<Started>;
  close(): Promise<void>;
}

export async function prepareEnergy(config: EnergyConfig): Promise<Prepared> {
  // Logs go to the kit's asynchronous stdout destination, flushed when the app closes.
  const app = await buildApp(config);
  const close = () => app.close();
  return {
    close,
    async listen() {
      const address = await listenQuietly(app, { host: config.host, port: config.port });
      const url = (config.publicUrl ?? address).replace(/\/+$/, '');
      const banner = [
        `energy asset service listening on ${url} (docs: ${url}/docs)`,
        `  data: ${app.databaseLabel}`,
        '  Get a token: npx energyctl users add --email EMAIL --password-stdin',
      ];
      return { url, drainDeadlineMs: config.drainDeadlineMs, banner, close };
    },
  };
}

/** `npm run start:energy`: configuration, preparation, listening, then the banner. */
export async function startEnergy(
  env: NodeJS.ProcessEnv,
  print: (line: string) => void = console.log,
): Promise<Started> {
  const prepared = await prepareEnergy(loadEnergyConfig(env));
  const started = await prepared.listen().catch(async (error: unknown) => {
    await prepared.close();
    throw error;
  });
  for (const line of started.banner) print(line);
  return started;
}

if (import.meta.main) {
  await runMain(async () => {
    const started = await startEnergy(process.env);
    closeOnSignals([started], {
      deadlineMs: started.drainDeadlineMs,
      log: (message, error) => console.error(message, error ?? ''),
      onStopped: () => console.log('energy asset service stopped'),
    });
  });
}
