/**
 * The README's start command, end to end: `node scripts/start-all.ts` on the embedded defaults
 * (temp data dirs, ephemeral ports) starts both services; health, metrics, OpenAPI and the
 * docs rendered in headless Chromium with every non-local request blocked; SIGTERM exits 0.
 */
import assert from 'node:assert/strict';
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Validator } from '@seriousme/openapi-schema-validator';
import { browserSkipReason, launchChromium } from './browser.ts';

const root = join(import.meta.dirname, '..');

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

describe('npm start (both services on the embedded defaults)', () => {
  let child: ChildProcess;
  let urls: { gateway: string; energy: string };
  const dir = mkdtempSync(join(tmpdir(), 'start-all-'));

  before(async () => {
    child = spawn(process.execPath, [join(root, 'scripts/start-all.ts')], {
      cwd: root,
      env: {
        ...process.env,
        GATEWAY_PORT: '0',
        ENERGY_PORT: '0',
        GATEWAY_DATA_DIR: dir,
        GATEWAY_DATABASE_URL: `sqlite:${join(dir, 'gateway.db')}`,
        ENERGY_DATABASE_URL: `sqlite:${join(dir, 'energy.db')}`,
        GATEWAY_LOG_LEVEL: 'warn',
        ENERGY_LOG_LEVEL: 'warn',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    urls = await waitForUrls(child);
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

  it('stops both services on SIGTERM with exit code 0', async () => {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    const [code] = await exited;
    assert.equal(code, 0);
  });
});
