/**
 * What `npm run start:gateway` writes while someone signs in through the development identity
 * provider for the first time: the banner and the gateway's own log lines, nothing printed raw
 * by oidc-provider (its "you MUST change it" warnings about unconfigured parts). A real process,
 * its stdout and stderr captured whole.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { formAction, redirectingBrowser } from '../dashboard/testing.ts';
import { loadDevUsers } from './index.ts';

const MAIN = join(import.meta.dirname, '..', 'main.ts');
const dir = mkdtempSync(join(tmpdir(), 'gw-dev-idp-console-'));
let child: ChildProcess;
const output = { stdout: '', stderr: '' };

/** Resolves with the gateway's address once the banner is printed. */
function listening(process: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    process.stdout?.on('data', (chunk: Buffer) => {
      output.stdout += chunk.toString();
      const url = /model gateway listening on (http:\/\/\S+)/.exec(output.stdout)?.[1];
      if (url && output.stdout.includes('DEVELOPMENT identity provider')) resolve(url);
    });
    process.stderr?.on('data', (chunk: Buffer) => (output.stderr += chunk.toString()));
    process.once('exit', () =>
      reject(new Error(`the gateway did not start:\n${output.stdout}${output.stderr}`)),
    );
  });
}

before(async () => {
  child = spawn(process.execPath, [MAIN], {
    env: {
      ...process.env,
      GATEWAY_HOST: '127.0.0.1',
      GATEWAY_PORT: '0',
      GATEWAY_DATA_DIR: dir,
      GATEWAY_DATABASE_URL: `sqlite:${join(dir, 'gateway.db')}`,
      GATEWAY_SIMULATOR: 'false',
      GATEWAY_LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
});
after(() => {
  if (child.exitCode === null) child.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

test('a first sign-in through the development provider prints nothing raw from oidc-provider', async () => {
  const base = await listening(child);
  const user = loadDevUsers(dir).find((candidate) => candidate.email === 'alice@example.com');
  assert.ok(user);
  const browser = redirectingBrowser(base);
  const login = await browser.request('/dashboard/login');
  const consent = await browser.request(formAction(login.text, 'Sign in'), {
    method: 'POST',
    form: { email: user.email, password: user.password },
  });
  const landed = await browser.request(formAction(consent.text, 'Authorize'), { method: 'POST', form: {} });
  assert.match(landed.text, /Signed in as <strong>alice@example.com<\/strong>/);

  child.kill('SIGTERM');
  await once(child, 'exit');
  const everything = `${output.stdout}\n${output.stderr}`.split('\n');
  assert.deepEqual(
    everything.filter((line) => line.includes('oidc-provider')),
    [],
  );
  assert.ok(
    everything.some((line) => line.startsWith('{') && line.includes('"msg":"dashboard sign-in"')),
    "the sign-in is in the gateway's log",
  );
});
