/**
 * The README's start command, end to end: `node scripts/start-all.ts` on the embedded defaults
 * (temp data dirs, ephemeral ports) starts both services; health, metrics, OpenAPI and the
 * docs rendered in headless Chromium with every non-local request blocked; SIGTERM exits 0.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { isolatedPostgresDatabase, testEngines } from '@app/db/testing.ts';
import { Validator } from '@seriousme/openapi-schema-validator';
import { browserSkipReason, launchChromium } from './browser.ts';

const root = join(import.meta.dirname, '..');
const postgresSkip = testEngines().find((engine) => engine.engine === 'postgres')?.skip;

interface Output {
  text: string;
}

/** Collects stdout; resolves once both services announced themselves (the banner ends with Ctrl-C). */
async function waitForUrls(
  child: ChildProcess,
  output: Output,
): Promise<{ gateway: string; energy: string }> {
  const found = (name: string) => output.text.match(new RegExp(`${name} listening on (http://\\S+)`))?.[1];
  const stdout = child.stdout as NodeJS.ReadableStream;
  return new Promise((resolve, reject) => {
    stdout.on('data', (chunk: Buffer) => {
      output.text += chunk.toString();
      const gateway = found('model gateway');
      const energy = found('energy asset service');
      if (gateway && energy && output.text.includes('Ctrl-C stops both.')) resolve({ gateway, energy });
    });
    child.once('exit', () => reject(new Error(`services did not start; output:\n${output.text}`)));
  });
}

function startAll(env: NodeJS.ProcessEnv, cwd = root): ChildProcess {
  return spawn(process.execPath, [join(root, 'scripts/start-all.ts')], {
    cwd,
    env: { ...process.env, GATEWAY_PORT: '0', ENERGY_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** Runs start-all to its end: exit code, stdout, stderr. */
async function runToExit(env: NodeJS.ProcessEnv, cwd = root) {
  const child = startAll(env, cwd);
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, 'exit')) as [number | null];
  return { code, stdout, stderr };
}

describe('npm start (both services on the embedded defaults)', () => {
  let child: ChildProcess;
  let urls: { gateway: string; energy: string };
  const output: Output = { text: '' };
  const dir = mkdtempSync(join(tmpdir(), 'start-all-'));
  const env = {
    GATEWAY_DATA_DIR: dir,
    GATEWAY_DATABASE_URL: `sqlite:${join(dir, 'gateway.db')}`,
    ENERGY_DATABASE_URL: `sqlite:${join(dir, 'energy.db')}`,
    GATEWAY_LOG_LEVEL: 'warn',
    ENERGY_LOG_LEVEL: 'warn',
  };

  before(async () => {
    child = startAll(env);
    child.stderr?.pipe(process.stderr);
    urls = await waitForUrls(child, output);
  });
  after(() => {
    if (child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  for (const service of ['gateway', 'energy'] as const) {
    it(`${service}: /healthz, /readyz and Prometheus /metrics answer`, async () => {
      const base = urls[service];
      assert.equal((await fetch(`${base}/healthz`)).status, 200);
      assert.equal((await fetch(`${base}/readyz`)).status, 200);
      const metrics = await fetch(`${base}/metrics`);
      assert.match(await metrics.text(), /# TYPE \w+_http_requests_total counter/);
    });

    it(`${service}: /openapi.json is a valid OpenAPI 3.1 document`, async () => {
      const document = (await (await fetch(`${urls[service]}/openapi.json`)).json()) as { openapi: string };
      assert.equal(document.openapi, '3.1.0');
      const result = await new Validator().validate(document);
      assert.equal(result.valid, true, JSON.stringify(result.errors));
    });

    it(
      `${service}: /docs renders in headless Chromium with the network off`,
      {
        skip: browserSkipReason(),
      },
      async () => {
        const browser = await launchChromium();
        try {
          const page = await browser.newPage();
          const external: string[] = [];
          await page.route('**/*', (route) => {
            const url = new URL(route.request().url());
            if (url.hostname === '127.0.0.1' || url.hostname === 'localhost') return route.continue();
            external.push(url.href);
            return route.abort('internetdisconnected');
          });
          await page.goto(`${urls[service]}/docs`);
          await page.locator('.swagger-ui .info .title').waitFor({ timeout: 15_000 });
          await page.locator('.opblock').first().waitFor({ timeout: 15_000 });
          assert.ok((await page.locator('.opblock').count()) > 0, 'operations are listed');
          assert.deepEqual(external, [], 'the docs page asked for nothing outside the service');
        } finally {
          await browser.close();
        }
      },
    );
  }

  it('announces each service once, its docs, its data, and the demo token on the first start', () => {
    assert.equal(output.text.match(/model gateway listening on /g)?.length, 1);
    assert.equal(output.text.match(/energy asset service listening on /g)?.length, 1);
    assert.ok(output.text.includes(`(docs: ${urls.gateway}/docs)`));
    assert.ok(output.text.includes(`data: ${join(dir, 'gateway.db')}`));
    assert.match(output.text, /Demo token \(expires .*\); try:\n {2}curl -s /);
  });

  it('stops both services on SIGTERM with exit code 0 and a "stopped" line', async () => {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const [code] = await exited;
    assert.equal(code, 0);
    assert.match(output.text, /model gateway and energy asset service stopped\n$/);
  });

  it('says how to get a token on a later start too', async () => {
    const again = startAll(env);
    const later: Output = { text: '' };
    try {
      await waitForUrls(again, later);
      assert.doesNotMatch(later.text, /Demo account created/);
      assert.match(
        later.text,
        /Get a token:\n(?: .*\n)*? {2}npx gatewayctl tokens issue --email demo@example\.com --project demo/,
      );
    } finally {
      again.kill('SIGKILL');
    }
  });
});

describe('npm start with a configuration it cannot use', () => {
  it('reports every mistake of both services at once, before anything listens', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'start-all-bad-'));
    try {
      const result = await runToExit(
        { GATEWAY_DATABASE_URL: 'mysql://x', ENERGY_DATABASE_URL: 'mysql://y', ENERGY_LOG_LEVEL: 'loud' },
        cwd,
      );
      assert.equal(result.code, 1);
      assert.match(result.stderr, /GATEWAY_DATABASE_URL: must be sqlite:<path>.* or postgres:\/\//);
      assert.match(result.stderr, /ENERGY_DATABASE_URL: must be sqlite:<path>/);
      assert.match(
        result.stderr,
        /ENERGY_LOG_LEVEL: must be one of: fatal, error, warn, info, debug, trace, silent/,
      );
      assert.doesNotMatch(result.stdout, /listening/);
      assert.doesNotMatch(result.stderr, /\n\s+at /, 'no stack trace');
      assert.deepEqual(readdirSync(cwd), [], 'no SQLite file named after the URL');
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  });

  it('refuses what only building finds (a missing catalog) before the simulator or either service is announced', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'start-all-catalog-'));
    try {
      const result = await runToExit({
        GATEWAY_DATA_DIR: dir,
        GATEWAY_DATABASE_URL: `sqlite:${join(dir, 'gateway.db')}`,
        ENERGY_DATABASE_URL: `sqlite:${join(dir, 'energy.db')}`,
        GATEWAY_CATALOG_PATH: join(dir, 'no-such-catalog.json'),
        GATEWAY_LOG_LEVEL: 'silent',
        ENERGY_LOG_LEVEL: 'silent',
      });
      assert.equal(result.code, 1);
      assert.match(result.stderr, /no-such-catalog\.json/);
      assert.equal(result.stdout, '');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('npm start with both services on one PostgreSQL database', { skip: postgresSkip }, () => {
  let database: { url: string; drop(): Promise<void> };
  let child: ChildProcess;
  let urls: { gateway: string; energy: string };
  let env: NodeJS.ProcessEnv;
  const output: Output = { text: '' };
  const dir = mkdtempSync(join(tmpdir(), 'start-all-pg-'));
  /** A command of the README (gatewayctl, energyctl) with the services' environment: its stdout. */
  const cli = (bin: string, ...args: string[]) => {
    const result = spawnSync(process.execPath, [join(root, bin), ...args], { env, encoding: 'utf8' });
    assert.equal(result.status, 0, `${bin} ${args.join(' ')}: ${result.stderr}`);
    assert.ok(result.stderr.includes('database: postgres://'), result.stderr);
    assert.doesNotMatch(result.stderr, /not-a-secret/, 'never the password');
    return result.stdout.trim();
  };

  before(async () => {
    database = await isolatedPostgresDatabase();
    // The same URL for both, as the operator wrote it, with a password (trust auth ignores it).
    const url = new URL(database.url);
    url.password = 'not-a-secret';
    env = {
      ...process.env,
      GATEWAY_PORT: '0',
      ENERGY_PORT: '0',
      GATEWAY_DATA_DIR: dir,
      GATEWAY_DATABASE_URL: url.href,
      ENERGY_DATABASE_URL: url.href,
      GATEWAY_LOG_LEVEL: 'warn',
      ENERGY_LOG_LEVEL: 'warn',
      GATEWAY_SIMULATOR_TOKEN_DELAY_MS: '0',
      GATEWAY_SIMULATOR_FIRST_TOKEN_DELAY_MS: '0',
    };
    child = startAll(env);
    child.stderr?.pipe(process.stderr);
    urls = await waitForUrls(child, output);
  });
  after(async () => {
    if (child?.exitCode === null) {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      await exited;
    }
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('names each service its own schema of the one database, never the password', () => {
    const where = `postgres://${new URL(database.url).host}${new URL(database.url).pathname}`;
    assert.ok(output.text.includes(`  data: ${where}, schema gateway, signing key in ${dir}`), output.text);
    assert.ok(output.text.includes(`  data: ${where}, schema energy\n`), output.text);
    assert.doesNotMatch(output.text, /not-a-secret/);
  });

  it('says the dashboard is off, why, and what turns it on; /dashboard says so too', async () => {
    assert.match(
      output.text,
      /\n {2}dashboard: off \(no identity provider: .*only on the embedded SQLite database\)\n {4}to turn it on, set GATEWAY_OIDC_ISSUER, GATEWAY_OIDC_CLIENT_ID and GATEWAY_OIDC_CLIENT_SECRET .*GATEWAY_DEV_IDP=on/,
    );
    const answer = await fetch(`${urls.gateway}/dashboard`);
    assert.equal(answer.status, 404);
    assert.equal(((await answer.json()) as { error: { code: string } }).error.code, 'gateway_dashboard_off');
  });

  it("serves the README's calls: a gatewayctl token on a chat completion, an energyctl token on the energy API", async () => {
    const gatewayctl = 'packages/gateway/bin/gatewayctl.js';
    for (const args of [
      ['users', 'add', '--email', 'ops@example.com', '--admin'],
      ['projects', 'add', 'lab'],
      ['members', 'request', 'lab', 'ops@example.com'],
      ['members', 'approve', 'lab', 'ops@example.com'],
      ['allocations', 'set', 'lab', 'developer', '5'],
    ])
      cli(gatewayctl, ...args);
    const token = cli(gatewayctl, 'tokens', 'issue', '--email', 'ops@example.com', '--project', 'lab');
    const chat = await fetch(`${urls.gateway}/v1/chat/completions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'Say hello!' }] }),
    });
    assert.equal(chat.status, 200, await chat.clone().text());
    const models = await fetch(`${urls.gateway}/v1/models`, {
      headers: { authorization: `Bearer ${token}` },
    });
    assert.equal(models.status, 200);

    // The energy service's own users table, beside the gateway's.
    const energy = JSON.parse(
      cli(
        'packages/energy/bin/energyctl.js',
        'users',
        'add',
        '--email',
        'ops@example.com',
        '--password',
        'correct horse',
      ),
    ) as { user_id: number; token: string };
    assert.equal(energy.user_id, 1);
    const buildings = await fetch(`${urls.energy}/api/v1/buildings.json?token=${energy.token}`);
    assert.equal(buildings.status, 200, await buildings.clone().text());
  });

  it("refuses a service pointed at the other's schema, naming it, before anything listens", async () => {
    const result = await runToExit({ ...env, GATEWAY_DATABASE_SCHEMA: 'energy', GATEWAY_SIMULATOR: 'false' });
    assert.equal(result.code, 1);
    assert.match(
      result.stderr,
      /, schema energy belongs to the energy service; the gateway service needs its own \(set GATEWAY_DATABASE_URL, GATEWAY_DATABASE_SCHEMA\)/,
    );
    assert.doesNotMatch(result.stdout, /listening/);
  });
});
