import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { checkFiles } from './catalog-check.ts';
import { bundledCatalogFile } from './testing.ts';

test('the bundled files pass the check', () => {
  const result = checkFiles({}, {});
  assert.equal(result.ok, true);
  assert.match(result.lines[0] ?? '', /15 models, \d+ aliases/);
});

test('a broken file fails with the path of each problem, and the command exits 1', () => {
  const dir = mkdtempSync(join(tmpdir(), 'catalog-check-'));
  try {
    const file = bundledCatalogFile();
    delete (file.models[2] as Record<string, unknown>).family;
    const path = join(dir, 'models.json');
    writeFileSync(path, JSON.stringify(file));
    const result = checkFiles({ catalog: path }, {});
    assert.equal(result.ok, false);
    assert.ok(result.lines.includes('  - models[2].family: required'), result.lines.join('\n'));
    const script = fileURLToPath(new URL('./catalog-check.ts', import.meta.url));
    assert.throws(
      () => execFileSync(process.execPath, [script, path], { stdio: 'pipe' }),
      (error: { status?: number; stderr?: Buffer }) =>
        error.status === 1 && String(error.stderr).includes('models[2].family: required'),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
