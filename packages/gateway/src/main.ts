import { closeOnSignals, runMain } from '@app/http-kit';
import { type Simulator, startSimulator } from '@app/upstream-simulator';
import { demoInstructions, seedDemoOnFirstStart } from './access/demo.ts';
import { buildApp } from './app.ts';
import { loadGatewayConfig } from './config.ts';
import type { UpstreamConfig } from './upstream/config.ts';

export interface Started {
  readonly url: string;
  readonly drainDeadlineMs: number;
  close(): Promise<void>;
}

export async function startGateway(env: NodeJS.ProcessEnv): Promise<Started> {
  const config = loadGatewayConfig(env);
  const simulator = await startBundledSimulator(config.upstream.simulator);
  const app = await buildApp(config, {
    // The simulator's credentials reach the signers as the environment the bundled upstreams
    // file names (`env:SIM_*`); a variable of the real environment wins.
    env: simulator ? { ...simulator.credentialEnv, ...env } : env,
    ...(simulator ? { simulatorUrl: simulator.url } : {}),
  }).catch(async (error: unknown) => {
    await simulator?.close();
    throw error;
  });
  const demo = await seedDemoOnFirstStart(config);
  const address = await app.listen({ host: config.host, port: config.port });
  const url = config.publicUrl ?? address;
  console.log(`model gateway listening on ${url} (docs: ${url}/docs)`);
  if (demo) console.log(demoInstructions(demo, url));
  return {
    url,
    drainDeadlineMs: config.drainDeadlineMs,
    close: async () => {
      await app.close();
      await simulator?.close();
    },
  };
}

/** The embedded default routes providers to the bundled simulator (catalog baseUrl `simulator`). */
async function startBundledSimulator(options: UpstreamConfig['simulator']): Promise<Simulator | undefined> {
  if (!options.enabled) return undefined;
  const simulator = await startSimulator({
    host: options.host,
    port: options.port,
    behaviour: {
      tokenDelayMs: options.tokenDelayMs,
      firstTokenDelayMs: options.firstTokenDelayMs,
      replyTokens: options.replyTokens,
    },
  });
  console.log(`upstream simulator listening on ${simulator.url}`);
  return simulator;
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
