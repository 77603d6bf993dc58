/** energyctl run from anywhere opens the database the service opens, and names it. */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { PROJECT_ROOT } from '@app/http-kit';
import { loadEnergyConfig } from '../config.ts';

const bin = join(import.meta.dirname, '../../bin/energyctl.js');
const name = `energyctl-cwd-${process.pid}-${Date.now()}`;
const env = { PATH: process.env.PATH ?? '', ENERGY_DATABASE_URL: `sqlite:./data/${name}/energy.db` };
const elsewhere = mkdtempSync(join(tmpdir(), 'energyctl-cwd-'));
after(() => {
  rmSync(join(PROJECT_ROOT, 'data', name), { recursive: true, force: true });
  rmSync(elsewhere, { recursive: true, force: true });
});

function addUser(cwd: string, email: string, ...more: string[]) {
  return spawnSync(
    process.execPath,
    [bin, 'users', 'add', '--email', email, '--password', 'secret-password', ...more],
    {
      cwd,
      env,
      encoding: 'utf8',
    },
  );
}

test('a relative database path is from the project directory, not the current one', () => {
  const first = addUser(elsewhere, 'a@example.com', '--create');
  assert.equal(first.status, 0, first.stderr);
  const path = join(PROJECT_ROOT, 'data', name, 'energy.db');
  assert.equal(first.stderr.trim(), `energyctl: database: ${path} (new, empty: created now)`);
  assert.deepEqual(readdirSync(elsewhere), []);

  const subdirectory = join(PROJECT_ROOT, 'packages', 'energy');
  const second = addUser(subdirectory, 'b@example.com');
  assert.equal(second.status, 0, second.stderr);
  assert.match(second.stdout, /^\{"user_id": 2,/, 'the same database');
  assert.equal(second.stderr.trim(), `energyctl: database: ${path}`);
  assert.equal(existsSync(join(subdirectory, 'data', name)), false);
  assert.equal(loadEnergyConfig(env).databaseUrl, `sqlite:${path}`, 'the service opens the same file');
});
