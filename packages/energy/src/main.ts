import { closeOnSignals, runMain } from '@app/http-kit';
import { buildApp } from './app.ts';
import { loadEnergyConfig } from './config.ts';

export interface Started {
  readonly url: string;
  readonly drainDeadlineMs: number;
  close(): Promise<void>;
}

export async function startEnergy(env: NodeJS.ProcessEnv): Promise<Started> {
  const config = loadEnergyConfig(env);
  // Logs go to the kit's asynchronous stdout destination, flushed when the app closes.
  const app = await buildApp(config);
  const address = await app.listen({ host: config.host, port: config.port });
  const url = config.publicUrl ?? address;
  console.log(`energy asset service listening on ${url} (docs: ${url}/docs)`);
  return { url, drainDeadlineMs: config.drainDeadlineMs, close: () => app.close() };
}

if (import.meta.main) {
  await runMain(async () => {
    const started = await startEnergy(process.env);
    closeOnSignals([started], {
      deadlineMs: started.drainDeadlineMs,
      log: (message, error) => console.error(message, error ?? ''),
    });
  });
}
