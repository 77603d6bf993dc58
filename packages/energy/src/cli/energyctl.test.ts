import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { openDatabase } from '@app/db';
import { verifyPassword } from '../auth/passwords.ts';
import { hashToken } from '../auth/tokens.ts';
import type { EnergyDatabase } from '../db/schema.ts';

const dir = mkdtempSync(join(tmpdir(), 'energyctl-'));
after(() => rmSync(dir, { recursive: true, force: true }));
const path = join(dir, 'energy.db');
const url = `sqlite:${path}`;
const bin = join(import.meta.dirname, '../../bin/energyctl.js');

function run(args: string[], env: Record<string, string> = { ENERGY_DATABASE_URL: url }, input = '') {
  return spawnSync(process.execPath, [bin, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', ...env },
    input,
  });
}

test('without --create, refuses to create the database, naming it and the settings; creates nothing', () => {
  const result = run(['users', 'add', '--email', 'ops@example.com', '--password', 'secret-password']);
  assert.equal(result.status, 1);
  assert.equal(
    result.stderr,
    `energyctl: no database at ${path}; set ENERGY_DATABASE_URL (and ENERGY_DATABASE_SCHEMA) to the energy service's database, or pass --create to create a new, empty one there\n`,
  );
  assert.equal(result.stdout, '');
  assert.equal(existsSync(path), false);
});

test('users add creates a user and prints its id and token; the token is stored hashed', async () => {
  const result = run([
    'users',
    'add',
    '--email',
    'ops@example.com',
    '--password',
    'secret-password',
    '--create',
  ]);
  assert.equal(result.status, 0, result.stderr);
  assert.equal(result.stderr, `energyctl: database: ${path} (new, empty: created now)\n`);
  assert.match(result.stdout, /^\{"user_id": 1, "token": "[A-Za-z0-9_-]{43}"\}\n$/);
  const { token } = JSON.parse(result.stdout);
  const database = await openDatabase<EnergyDatabase>(url);
  try {
    const row = await database.db.selectFrom('api_tokens').selectAll().executeTakeFirstOrThrow();
    assert.equal(row.token_hash, hashToken(token));
    const user = await database.db.selectFrom('users').selectAll().executeTakeFirstOrThrow();
    assert.equal(user.email, 'ops@example.com');
    assert.ok(!user.password_hash.includes('secret-password'));
  } finally {
    await database.close();
  }
});

test('a taken email, a bad email, a short password and bad usage fail with a message', () => {
  const duplicate = run(['users', 'add', '--email', 'OPS@example.com', '--password', 'secret-password']);
  assert.equal(duplicate.status, 1);
  assert.match(duplicate.stderr, /already exists/);
  assert.equal(duplicate.stdout, '');
  assert.equal(run(['users', 'add', '--email', 'nope', '--password', 'secret-password']).status, 2);
  assert.equal(run(['users', 'add', '--email', 'a@b.co', '--password', 'short']).status, 2);
  const usage = run(['users', 'remove']);
  assert.equal(usage.status, 2);
  assert.match(usage.stderr, /unknown command 'users remove'[\s\S]*energyctl users add --email/);
});

test('configuration errors name the variable', () => {
  const result = run(['users', 'add', '--email', 'x@example.com', '--password', 'secret-password'], {
    ENERGY_DATABASE_URL: url,
    ENERGY_LOG_LEVEL: 'loud',
  });
  assert.equal(result.status, 1);
  assert.match(result.stderr, /ENERGY_LOG_LEVEL/);
});

test('--password-stdin reads the password from standard input, without its line break', async () => {
  const args = ['users', 'add', '--email', 'stdin@example.com', '--password-stdin'];
  const result = run(args, { ENERGY_DATABASE_URL: url }, 'typed at a prompt\n');
  assert.equal(result.status, 0, result.stderr);
  assert.equal(result.stderr, `energyctl: database: ${path}\n`, 'the database named on every write');
  const database = await openDatabase<EnergyDatabase>(url);
  try {
    const user = await database.db
      .selectFrom('users')
      .selectAll()
      .where('email', '=', 'stdin@example.com')
      .executeTakeFirstOrThrow();
    assert.equal(await verifyPassword('typed at a prompt', user.password_hash), true);
  } finally {
    await database.close();
  }
  const both = run([...args, '--password', 'secret-password'], { ENERGY_DATABASE_URL: url }, 'x\n');
  assert.equal(both.status, 2);
  assert.match(both.stderr, /not both/);
  assert.equal(
    run(
      ['users', 'add', '--email', 'e@example.com', '--password-stdin'],
      { ENERGY_DATABASE_URL: url },
      'short\n',
    ).status,
    2,
  );
});
