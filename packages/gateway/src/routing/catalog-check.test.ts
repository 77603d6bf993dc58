import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { checkFiles } from './catalog-check.ts';
import { DEFAULT_CATALOG_PATH, DEFAULT_UPSTREAMS_PATH, readJsonFile } from './index.ts';
import { bundledCatalogFile, type CatalogFileCopy } from './testing.ts';

const script = fileURLToPath(new URL('./catalog-check.ts', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'catalog-check-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** The bundled upstreams file with OpenAI on the developer provider reached with `auth`. */
function upstreamsWithOpenAiAuth(name: string, auth: unknown): string {
  const file = readJsonFile(DEFAULT_UPSTREAMS_PATH) as {
    providers: { developer: { vendors: Record<string, unknown> } };
  };
  file.providers.developer.vendors.openai = { adapter: 'openai', auth };
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(file));
  return path;
}

test('the bundled files pass the check, with or without reading the credentials', async () => {
  const result = await checkFiles({}, {});
  assert.equal(result.ok, true, result.lines.join('\n'));
  assert.match(result.lines[0] ?? '', /20 models, \d+ aliases/);
  assert.match(result.lines[1] ?? '', /: ok, credentials not read/);
  // The simulator's credentials are supplied as at start-up: the bundled file needs no secrets.
  const withCredentials = await checkFiles({}, {}, { credentials: true });
  assert.equal(withCredentials.ok, true, withCredentials.lines.join('\n'));
  assert.match(withCredentials.lines[1] ?? '', /: ok, credentials present$/);
});

test('a missing secret is a problem only when credentials are checked, named by its location', async () => {
  const path = upstreamsWithOpenAiAuth('missing.json', {
    type: 'bearer',
    token: 'env:CHECK_TEST_OPENAI_KEY',
  });
  assert.equal((await checkFiles({ upstreams: path }, {})).ok, true);
  const missing = await checkFiles({ upstreams: path }, { OTHER: 'sk-other' }, { credentials: true });
  assert.equal(missing.ok, false);
  assert.ok(
    missing.lines.includes(
      '  - providers.developer.vendors.openai.auth: secret env:CHECK_TEST_OPENAI_KEY: environment variable is not set or empty',
    ),
    missing.lines.join('\n'),
  );
  assert.equal(missing.lines.length, 2, 'the heading and the one problem');
  const present = await checkFiles(
    { upstreams: path },
    { CHECK_TEST_OPENAI_KEY: 'sk-x' },
    { credentials: true },
  );
  assert.equal(present.ok, true, present.lines.join('\n'));
});

test('an invalid auth entry fails even when credentials are not read', async () => {
  const path = upstreamsWithOpenAiAuth('literal.json', { type: 'bearer', token: 'sk-live-123' });
  const result = await checkFiles({ upstreams: path }, {});
  assert.equal(result.ok, false);
  assert.match(
    result.lines.join('\n'),
    /providers\.developer\.vendors\.openai\.auth\.token: must match pattern/,
  );
  assert.ok(!result.lines.join('\n').includes('sk-live-123'), 'a pasted secret is never echoed');
});

test('a broken file fails with the path of each problem, and the command exits 1', async () => {
  const file = bundledCatalogFile();
  delete (file.models[2] as Record<string, unknown>).family;
  const path = join(dir, 'models.json');
  writeFileSync(path, JSON.stringify(file));
  const result = await checkFiles({ catalog: path }, {});
  assert.equal(result.ok, false);
  assert.ok(result.lines.includes('  - models[2].family: required'), result.lines.join('\n'));
  assert.throws(
    () => execFileSync(process.execPath, [script, path], { stdio: 'pipe' }),
    (error: { status?: number; stderr?: Buffer }) =>
      error.status === 1 && String(error.stderr).includes('models[2].family: required'),
  );
});

type Offers = Record<string, { prices: { standard: Record<string, unknown> } } | undefined>;

/** The standard price of a model's offer on a provider in a catalog file copy, to edit. */
function standardPrice(file: CatalogFileCopy, model: string, provider: string): Record<string, unknown> {
  const offers = file.models.find((entry) => entry.id === model)?.providers as Offers | undefined;
  const price = offers?.[provider]?.prices.standard;
  assert.ok(price, `${model} on ${provider}`);
  return price;
}

test('an offer whose adapter can report a meter its prices cannot price is refused', async () => {
  const file = bundledCatalogFile();
  const standard = standardPrice(file, 'claude-haiku-4-5-20251001', 'cloud_a');
  delete standard.cache_write_1h;
  // A five-minute write falls back to the input rate: without its own rate it is still priced.
  delete standard.cache_write_5m;
  const path = join(dir, 'unpriced-meter.json');
  writeFileSync(path, JSON.stringify(file));
  const result = await checkFiles({ catalog: path }, {});
  assert.equal(result.ok, false);
  const text = result.lines.join('\n');
  assert.match(
    text,
    /claude-haiku-4-5-20251001 has no price for meters that adapter 'bedrock-converse' reports \(standard cache_write_1h\)/,
  );
  assert.doesNotMatch(text, /cache_write_5m/);
});

test('a meter name the registry does not know is refused; so are prompt-size tiers out of order', async () => {
  const broken = async (name: string, edit: (standard: Record<string, unknown>) => void) => {
    const file = bundledCatalogFile();
    edit(standardPrice(file, 'gemini-2.5-pro', 'developer'));
    const path = join(dir, name);
    writeFileSync(path, JSON.stringify(file));
    const result = await checkFiles({ catalog: path }, {});
    assert.equal(result.ok, false);
    return result.lines.join('\n');
  };
  const typo = await broken('typo-meter.json', (standard) => (standard.imput = 1));
  assert.match(typo, /prices\.standard.*imput/);
  const order = await broken('tier-order.json', (standard) => {
    standard.byPromptSize = [
      { abovePromptTokens: 300_000, input: 3 },
      { abovePromptTokens: 200_000, input: 2 },
    ];
  });
  assert.match(
    order,
    /prices\.standard\.byPromptSize\[1\]\.abovePromptTokens: must be larger than the one before/,
  );
});

test('model lifecycle: announced dates are listed; an alias that would name a retired model fails', async () => {
  const sonnet = '  claude-sonnet-4-5-20250929: deprecated 2026-09-30';
  const before = await checkFiles({}, {}, { now: () => Date.parse('2026-11-29T23:59:59Z') });
  assert.equal(before.ok, true, before.lines.join('\n'));
  assert.deepEqual(before.lines.slice(2), [`${sonnet}, retires 2026-11-30, successor claude-sonnet-4-6`]);
  const past = await checkFiles({}, {}, { now: () => Date.parse('2026-11-30T00:00:00Z') });
  assert.deepEqual(past.lines.slice(2), [
    `${sonnet}, retired 2026-11-30, successor claude-sonnet-4-6: its names answer 410 model_retired`,
  ]);
  // Retiring the last Sonnet too would leave the alias `claude-sonnet` naming a retired model.
  const file = bundledCatalogFile();
  const current = file.models.find((model) => model.id === 'claude-sonnet-4-6');
  Object.assign(current ?? {}, { retiresAt: '2027-06-01', successor: 'claude-opus-4-8' });
  const path = join(dir, 'retired-alias.json');
  writeFileSync(path, JSON.stringify(file));
  assert.throws(
    () => execFileSync(process.execPath, [script, path], { stdio: 'pipe' }),
    (error: { status?: number; stderr?: Buffer }) =>
      error.status === 1 &&
      String(error.stderr) ===
        `Invalid ${path}:\n  - families: 'claude-sonnet': every version retires (the last on 2027-06-01), after which its aliases (claude-sonnet) would resolve to a retired model; add a version without retiresAt or remove the aliases\n`,
  );
});

test('the command reads credentials from its environment with --credentials', () => {
  const path = upstreamsWithOpenAiAuth('cli.json', { type: 'bearer', token: 'env:CHECK_TEST_OPENAI_KEY' });
  const env = { PATH: process.env.PATH ?? '' };
  const run = (args: string[], extra: Record<string, string> = {}) =>
    execFileSync(process.execPath, [script, ...args], {
      stdio: 'pipe',
      env: { ...env, ...extra },
    }).toString();
  const models = DEFAULT_CATALOG_PATH;
  assert.match(run([models, path]), /: ok, credentials not read/);
  assert.throws(
    () => run(['--credentials', models, path]),
    (error: { status?: number; stderr?: Buffer }) =>
      error.status === 1 && String(error.stderr).includes('secret env:CHECK_TEST_OPENAI_KEY'),
  );
  assert.match(
    run(['--credentials', models, path], { CHECK_TEST_OPENAI_KEY: 'sk-x' }),
    /credentials present/,
  );
});

describe('ambient credentials', () => {
  const file = readJsonFile(DEFAULT_UPSTREAMS_PATH) as {
    providers: { cloud_a: { vendors: { anthropic: { auth: unknown } } } };
  };
  file.providers.cloud_a.vendors.anthropic.auth = { type: 'aws-default-chain' };
  const path = join(dir, 'ambient.json');
  writeFileSync(path, JSON.stringify(file));
  const nowhere = join(dir, 'no-aws-config');
  /** The command in a clean environment: no shared AWS config, no instance metadata. */
  const run = (extra: Record<string, string>) =>
    promisify(execFile)(process.execPath, [script, '--credentials', DEFAULT_CATALOG_PATH, path], {
      env: {
        PATH: process.env.PATH ?? '',
        AWS_CONFIG_FILE: nowhere,
        AWS_SHARED_CREDENTIALS_FILE: nowhere,
        AWS_EC2_METADATA_DISABLED: 'true',
        ...extra,
      },
    });

  test('an ambient entry needs no secret; without --credentials nothing is obtained', async () => {
    const result = await checkFiles({ upstreams: path }, {});
    assert.equal(result.ok, true, result.lines.join('\n'));
    assert.match(result.lines[1] ?? '', /credentials not read/);
  });

  test('with --credentials the chain is asked, in the command environment, and a failure names the endpoint', async () => {
    await assert.rejects(
      run({}),
      (error: { code?: number; stderr?: string }) =>
        error.code === 1 &&
        String(error.stderr).includes(
          '  - providers.cloud_a.vendors.anthropic.auth: aws-default-chain (bedrock, us-east-1): no credentials could be obtained',
        ),
    );
    const container = createServer((req, res) => {
      res.writeHead(req.headers.authorization === 'check-token' ? 200 : 401, {
        'content-type': 'application/json',
      });
      res.end(
        JSON.stringify({
          AccessKeyId: 'ASIACHECK',
          SecretAccessKey: 'check-secret',
          Token: 'check-session',
          Expiration: new Date(Date.now() + 3_600_000).toISOString(),
        }),
      );
    });
    await new Promise<void>((resolve) => container.listen(0, '127.0.0.1', resolve));
    try {
      const { port } = container.address() as AddressInfo;
      const { stdout } = await run({
        AWS_CONTAINER_CREDENTIALS_FULL_URI: `http://127.0.0.1:${port}/creds`,
        AWS_CONTAINER_AUTHORIZATION_TOKEN: 'check-token',
      });
      assert.match(stdout, /: ok, credentials present \(1 ambient obtained\)/);
      assert.ok(!stdout.includes('check-secret'));
    } finally {
      container.close();
    }
  });
});
