/**
 * The embedded default as a newcomer runs it (`npm start`: both services, SQLite under a data
 * directory, the built-in simulated upstream), in a child process on free ports and a temporary
 * data directory, plus tokens minted the way the docs say (`gatewayctl`, `energyctl`). The
 * simulator's pacing is set to zero so examples run quickly; nothing else differs.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';

export const ROOT = join(import.meta.dirname, '..');

export interface EmbeddedDefault {
  readonly gatewayUrl: string;
  readonly energyUrl: string;
  /** The environment the services run with; commands given it reach the same data. */
  readonly env: NodeJS.ProcessEnv;
  /** A fresh token of the demo account, issued with `gatewayctl tokens issue`. */
  gatewayToken(): string;
  /** A new energy user's API token, from `energyctl users add`. */
  energyToken(email: string): string;
  close(): Promise<void>;
}

async function waitForUrls(child: ChildProcess): Promise<{ gateway: string; energy: string }> {
  let output = '';
  const found = (name: string) => output.match(new RegExp(`${name} listening on (http://\\S+)`))?.[1];
  for await (const chunk of child.stdout as AsyncIterable<Buffer>) {
    output += chunk.toString();
    const gateway = found('model gateway');
    const energy = found('energy asset service');
    if (gateway && energy) return { gateway, energy };
  }
  throw new Error(`services did not start; output:\n${output}`);
}

/** Runs a command of the docs with the services' environment; its standard output. */
export function run(command: string, args: readonly string[], env: NodeJS.ProcessEnv): string {
  const result = spawnSync(command, args, { cwd: ROOT, env, encoding: 'utf8' });
  if (result.status !== 0)
    throw new Error(`${command} ${args.join(' ')} exited ${result.status}: ${result.stderr}`);
  return result.stdout;
}

export async function startEmbeddedDefault(): Promise<EmbeddedDefault> {
  const dir = mkdtempSync(join(tmpdir(), 'embedded-default-'));
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // The project's Node 24 and bins first, as under `npm run` / `npx`.
    PATH: `${join(ROOT, 'node_modules', '.bin')}${delimiter}${process.env.PATH ?? ''}`,
    GATEWAY_PORT: '0',
    ENERGY_PORT: '0',
    GATEWAY_DATA_DIR: join(dir, 'gateway'),
    GATEWAY_DATABASE_URL: `sqlite:${join(dir, 'gateway', 'gateway.db')}`,
    ENERGY_DATABASE_URL: `sqlite:${join(dir, 'energy.db')}`,
    GATEWAY_LOG_LEVEL: 'warn',
    ENERGY_LOG_LEVEL: 'warn',
    GATEWAY_SIMULATOR_TOKEN_DELAY_MS: '0',
    GATEWAY_SIMULATOR_FIRST_TOKEN_DELAY_MS: '0',
  };
  const child = spawn(process.execPath, [join(ROOT, 'scripts/start-all.ts')], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const urls = await waitForUrls(child);
  // Keep reading so the child never blocks on a full pipe.
  child.stdout?.resume();
  return {
    gatewayUrl: urls.gateway,
    energyUrl: urls.energy,
    env,
    gatewayToken: () =>
      run(
        process.execPath,
        [
          join(ROOT, 'packages/gateway/bin/gatewayctl.js'),
          'tokens',
          'issue',
          '--email',
          'demo@example.com',
          '--project',
          'demo',
        ],
        env,
      ).trim(),
    energyToken: (email) => {
      const out = run(
        process.execPath,
        [
          join(ROOT, 'packages/energy/bin/energyctl.js'),
          'users',
          'add',
          '--email',
          email,
          '--password',
          'correct horse battery',
        ],
        env,
      );
      return (JSON.parse(out) as { token: string }).token;
    },
    close: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve));
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
