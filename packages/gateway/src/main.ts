import { closeOnSignals, runMain } from '@app/http-kit';
import { buildApp } from './app.ts';
import { loadGatewayConfig } from './config.ts';

export interface Started {
  readonly url: string;
  readonly drainDeadlineMs: number;
  close(): Promise<void>;
}

export async function startGateway(env: NodeJS.ProcessEnv): Promise<Started> {
  const config = loadGatewayConfig(env);
  const app = await buildApp(config);
  const address = await app.listen({ host: config.host, port: config.port });
  const url = config.publicUrl ?? address;
  console.log(`model gateway listening on ${url} (docs: ${url}/docs)`);
  return { url, drainDeadlineMs: config.drainDeadlineMs, close: () => app.close() };
}

if (import.meta.main) {
  await runMain(async () => {
    const started = await startGateway(process.env);
    closeOnSignals([started], {
      deadlineMs: started.drainDeadlineMs,
      log: (message, error) => console.error(message, error ?? ''),
    });
  });
}
