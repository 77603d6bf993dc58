import { closeOnSignals, runMain } from '@app/http-kit';
import pino from 'pino';
import { buildApp } from './app.ts';
import { loadEnergyConfig } from './config.ts';

export interface Started {
  readonly url: string;
  readonly drainDeadlineMs: number;
  close(): Promise<void>;
}

export async function startEnergy(env: NodeJS.ProcessEnv): Promise<Started> {
  const config = loadEnergyConfig(env);
  // Asynchronous stdout: lines written while a write is in flight go out together, instead of
  // one blocking write() per line (two per request), which cost a third of a request's CPU.
  const logStream = pino.destination({ dest: 1, sync: false });
  // SonicBoom is what pino writes to, though its typings do not declare every Writable member.
  const app = await buildApp(config, { logStream: logStream as unknown as NodeJS.WritableStream });
  app.addHook('onClose', async () => logStream.flushSync());
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
