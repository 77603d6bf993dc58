import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkFiles } from './catalog-check.ts';
import { DEFAULT_CATALOG_PATH, DEFAULT_UPSTREAMS_PATH, readJsonFile } from './index.ts';
import { bundledCatalogFile } from './testing.ts';

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
  assert.match(result.lines[0] ?? '', /15 models, \d+ aliases/);
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
