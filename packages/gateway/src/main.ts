import { parseDatabaseUrl } from '@app/db';
import { type App, closeOnSignals, listenQuietly, runMain } from '@app/http-kit';
import { type Simulator, startSimulator } from '@app/upstream-simulator';
import {
  type DemoAccount,
  demoInstructions,
  seedDemoOnFirstStart,
  tokenInstructions,
} from './access/demo.ts';
import { buildApp } from './app.ts';
import { type GatewayConfig, loadGatewayConfig } from './config.ts';
import { dashboardBanner, devIdpBanner } from './dashboard/mount.ts';
import { DASHBOARD_PATH } from './error-format.ts';
import type { UpstreamConfig } from './upstream/config.ts';

export interface Started {
  readonly url: string;
  readonly drainDeadlineMs: number;
  /** What an operator reads at start: where it listens, its docs, how to get a token. */
  readonly banner: readonly string[];
  close(): Promise<void>;
}

/** Built and validated, nothing announced, the gateway not yet listening. */
export interface Prepared {
  listen(): Promise<Started>;
  close(): Promise<void>;
}

/**
 * Everything that can refuse a configuration (catalogs, keys, IP rules, the database) runs here,
 * before the gateway listens; `npm start` prepares both services before either listens. The
 * bundled simulator must be bound first (the gateway is built with its address) but is announced
 * only with the gateway.
 */
export async function prepareGateway(config: GatewayConfig, env: NodeJS.ProcessEnv): Promise<Prepared> {
  const simulator = await startBundledSimulator(config.upstream.simulator);
  let app: App | undefined;
  const close = async () => {
    await app?.close();
    await simulator?.close();
  };
  try {
    app = await buildApp(config, {
      // The simulator's credentials reach the signers as the environment the bundled upstreams
      // file names (`env:SIM_*`); a variable of the real environment wins.
      env: simulator ? { ...simulator.credentialEnv, ...env } : env,
      ...(simulator ? { simulatorUrl: simulator.url } : {}),
    });
    const demo = await seedDemoOnFirstStart(config);
    const built = app;
    return { close, listen: () => listen(built, config, { simulator, demo, close }) };
  } catch (error) {
    await close();
    throw error;
  }
}

async function listen(
  app: App,
  config: GatewayConfig,
  parts: { simulator: Simulator | undefined; demo: DemoAccount | undefined; close: () => Promise<void> },
): Promise<Started> {
  const address = await listenQuietly(app, { host: config.host, port: config.port });
  const url = (config.publicUrl ?? address).replace(/\/+$/, '');
  return {
    url,
    drainDeadlineMs: config.drainDeadlineMs,
    banner: banner(app, config, url, parts),
    close: parts.close,
  };
}

function banner(
  app: App,
  config: GatewayConfig,
  url: string,
  parts: { simulator: Simulator | undefined; demo: DemoAccount | undefined },
): string[] {
  const database = parseDatabaseUrl(config.databaseUrl);
  const dashboard = app.dashboardEnabled ? `${url}${DASHBOARD_PATH}` : undefined;
  return [
    `model gateway listening on ${url} (docs: ${url}/docs)`,
    ...dashboardBanner(config, url),
    ...devIdpBanner(config),
    ...(parts.simulator ? [`  upstream simulator listening on ${parts.simulator.url}`] : []),
    `  data: ${app.databaseLabel}, signing key in ${config.dataDir}`,
    ...(parts.demo
      ? demoInstructions(parts.demo, url).split('\n')
      : tokenInstructions({ demo: config.access.demoSeed && database.engine === 'sqlite', dashboard })),
  ];
}

/** The embedded default routes providers to the bundled simulator (catalog baseUrl `simulator`). */
async function startBundledSimulator(options: UpstreamConfig['simulator']): Promise<Simulator | undefined> {
  if (!options.enabled) return undefined;
  return startSimulator({
    host: options.host,
    port: options.port,
    behaviour: {
      tokenDelayMs: options.tokenDelayMs,
      firstTokenDelayMs: options.firstTokenDelayMs,
      replyTokens: options.replyTokens,
    },
  });
}

/** `npm run start:gateway`: configuration, preparation, listening, then the banner. */
export async function startGateway(
  env: NodeJS.ProcessEnv,
  print: (line: string) => void = console.log,
): Promise<Started> {
  const prepared = await prepareGateway(loadGatewayConfig(env), env);
  const started = await prepared.listen().catch(async (error: unknown) => {
    await prepared.close();
    throw error;
  });
  for (const line of started.banner) print(line);
  return started;
}

if (import.meta.main) {
  await runMain(async () => {
    const started = await startGateway(process.env);
    closeOnSignals([started], {
      deadlineMs: started.drainDeadlineMs,
      log: (message, error) => console.error(message, error ?? ''),
      onStopped: () => console.log('model gateway stopped'),
    });
  });
}
