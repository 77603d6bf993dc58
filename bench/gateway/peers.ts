/**
 * Peers of the gateway benchmark: other gateways run side by side in the same run. Portkey's
 * open-source gateway 1.15.2 is installed from npm on demand into bench/gateway/peers/portkey
 * (its own package.json, node_modules gitignored), never a dependency of this project, and run
 * as a child process in front of the same simulator (its `x-portkey-custom-host` header points
 * the OpenAI provider at it).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { request } from 'undici';

const PORTKEY_DIR = fileURLToPath(new URL('./peers/portkey/', import.meta.url));
const PORTKEY_SERVER = `${PORTKEY_DIR}node_modules/@portkey-ai/gateway/build/start-server.js`;

export interface Peer {
  readonly url: string;
  readonly headers: Record<string, string>;
  stop(): Promise<void>;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

async function waitUp(url: string, child: ChildProcess): Promise<void> {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (child.exitCode !== null) throw new Error(`portkey exited with ${child.exitCode}`);
    const up = await request(url).then(
      (response) => response.body.dump().then(() => response.statusCode === 200),
      () => false,
    );
    if (up) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('portkey did not start within 10 s');
}

/** Installs Portkey 1.15.2 if it is not yet (npm, into its own folder), then starts it. */
export async function startPortkey(simulatorBaseUrl: string): Promise<Peer> {
  if (!existsSync(PORTKEY_SERVER)) {
    execFileSync(
      'npm',
      ['install', '--prefix', PORTKEY_DIR, '--no-audit', '--no-fund', '--no-package-lock'],
      {
        stdio: 'ignore',
      },
    );
  }
  const port = await freePort();
  // --headless and NODE_ENV=production: no log UI; stdout is its start-up banner, thrown away.
  const child = spawn(
    process.env.PK_NODE ?? process.execPath,
    [PORTKEY_SERVER, `--port=${port}`, '--headless'],
    {
      env: { ...process.env, NODE_ENV: 'production' },
      stdio: 'ignore',
    },
  );
  // A crashed run must not leave the peer behind.
  const orphan = () => child.kill();
  process.once('exit', orphan);
  const url = `http://127.0.0.1:${port}`;
  await waitUp(`${url}/`, child);
  return {
    url: `${url}/v1`,
    headers: {
      authorization: 'Bearer sk-bench',
      'x-portkey-provider': 'openai',
      'x-portkey-custom-host': simulatorBaseUrl,
    },
    stop: () =>
      new Promise<void>((resolve) => {
        process.off('exit', orphan);
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
