import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { CatalogError } from './catalog.ts';
import { DEFAULT_UPSTREAMS_PATH, readJsonFile } from './index.ts';
import { bundledCatalog, SIMULATOR_URL } from './testing.ts';
import { buildUpstreams, type UpstreamsOptions } from './upstreams.ts';

const catalog = bundledCatalog();
const local = { adapter: 'openai-compatible', baseUrl: 'http://127.0.0.1:11434/v1' };

/** Every provider on a local server, with `patch` applied to the providers section. */
function file(patch: Record<string, unknown> = {}) {
  return {
    providers: {
      developer: { default: local },
      cloud_a: { default: local },
      cloud_b: { default: local },
      cloud_c: { default: local },
      ...patch,
    },
  };
}

function build(input: unknown, options: Partial<UpstreamsOptions> = {}) {
  return buildUpstreams(input, { catalog, simulatorUrl: SIMULATOR_URL, env: {}, ...options });
}

function problemsOf(input: unknown, options: Partial<UpstreamsOptions> = {}): readonly string[] {
  try {
    build(input, options);
  } catch (error) {
    assert.ok(error instanceof CatalogError);
    return error.problems;
  }
  assert.fail('the upstreams file was accepted');
}

test('the bundled default sends every provider to the simulator and marks it simulated', () => {
  const { upstreams, warnings } = build(readJsonFile(DEFAULT_UPSTREAMS_PATH));
  assert.deepEqual(warnings, []);
  const endpoint = upstreams.endpoint('cloud_b', 'claude-sonnet');
  assert.equal(endpoint?.baseUrl, SIMULATOR_URL);
  assert.equal(endpoint?.simulated, true);
  assert.deepEqual(endpoint?.auth, { type: 'none' });
});

test('without a simulator in process the simulated endpoints are unusable, with a warning each', () => {
  const { upstreams, warnings } = build(readJsonFile(DEFAULT_UPSTREAMS_PATH), { simulatorUrl: undefined });
  assert.equal(upstreams.endpoint('developer', 'gpt'), undefined);
  assert.equal(warnings.length, 4);
  assert.match(warnings[0] ?? '', /providers\.developer\.default: baseUrl is 'simulator'/);
});

test('a family endpoint wins over the provider default and keeps its own breaker key', () => {
  const special = { adapter: 'openai-compatible', baseUrl: 'http://10.0.0.2:8000/v1', timeoutMs: 5000 };
  const { upstreams } = build(file({ cloud_b: { default: local, families: { 'gemini-pro': special } } }));
  assert.equal(upstreams.endpoint('cloud_b', 'gemini-pro')?.baseUrl, 'http://10.0.0.2:8000/v1');
  assert.equal(upstreams.endpoint('cloud_b', 'gemini-pro')?.key, 'cloud_b/gemini-pro');
  assert.equal(upstreams.endpoint('cloud_b', 'gemini-pro')?.timeoutMs, 5000);
  assert.equal(upstreams.endpoint('cloud_b', 'claude-opus')?.key, 'cloud_b');
  assert.equal(upstreams.endpoint('cloud_b', 'claude-opus')?.timeoutMs, 120_000);
});

test('secrets are read from env: and path: locations at start-up', () => {
  const dir = mkdtempSync(join(tmpdir(), 'upstreams-'));
  try {
    writeFileSync(join(dir, 'key'), 'file-secret\n');
    const { upstreams } = build(
      file({
        developer: { default: { ...local, auth: { type: 'bearer', token: 'env:OPENAI_KEY' } } },
        cloud_c: {
          default: { ...local, auth: { type: 'header', name: 'api-key', value: `path:${join(dir, 'key')}` } },
        },
      }),
      { env: { OPENAI_KEY: 'env-secret' } },
    );
    assert.deepEqual(upstreams.endpoint('developer', 'gpt')?.auth, { type: 'bearer', token: 'env-secret' });
    assert.deepEqual(upstreams.endpoint('cloud_c', 'gpt')?.auth, {
      type: 'header',
      name: 'api-key',
      value: 'file-secret',
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a literal secret in the file is rejected; a missing secret names its location only', () => {
  const literal = problemsOf(
    file({ developer: { default: { ...local, auth: { type: 'bearer', token: 'sk-live-123' } } } }),
  );
  assert.equal(literal.length, 1);
  assert.match(literal[0] ?? '', /^providers\.developer\.default\.auth\.token: must match pattern/);
  const missing = problemsOf(
    file({ developer: { default: { ...local, auth: { type: 'bearer', token: 'env:NOPE' } } } }),
  );
  assert.deepEqual(missing, ['providers.developer.default.auth: environment variable NOPE is not set']);
});

test('an unknown adapter or auth type lists the known ones; unknown fields are rejected', () => {
  assert.deepEqual(problemsOf(file({ cloud_a: { default: { ...local, adapter: 'bedrock' } } })), [
    'providers.cloud_a.default.adapter: must be one of openai-compatible',
  ]);
  assert.deepEqual(problemsOf(file({ cloud_a: { default: { ...local, auth: { type: 'sigv4' } } } })), [
    'providers.cloud_a.default.auth.type: must be one of none, bearer, header',
  ]);
  assert.deepEqual(problemsOf(file({ cloud_a: { default: { ...local, retries: 3 } } })), [
    'providers.cloud_a.default.retries: unknown field',
  ]);
});

test('every provider the catalog uses needs an endpoint; unknown families are reported', () => {
  const problems = problemsOf(file({ cloud_c: undefined, cloud_b: { families: { 'gemini-ultra': local } } }));
  assert.ok(problems.includes('providers.cloud_b.families.gemini-ultra: unknown model family'));
  assert.ok(problems.some((p) => p.startsWith("providers.cloud_c: serves family 'gpt'")));
  assert.ok(problems.some((p) => p.startsWith("providers.cloud_b: serves family 'claude-opus'")));
});
