/**
 * energyctl's operator commands against a service on the same database: what a command does is
 * checked through the service's HTTP interface (a token works or is refused, a password signs in).
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { App } from '@app/http-kit';
import { buildApp } from '../app.ts';
import { loadEnergyConfig } from '../config.ts';
import { energyctl } from './energyctl.ts';

const dir = mkdtempSync(join(tmpdir(), 'energyctl-admin-'));
const url = `sqlite:${join(dir, 'energy.db')}`;
const bin = join(import.meta.dirname, '../../bin/energyctl.js');

/** The bin as a process: its exit code and its streams as a shell sees them. */
function spawned(args: string[]) {
  const result = spawnSync(process.execPath, [bin, ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '', ENERGY_DATABASE_URL: url },
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** The same entry point the bin calls, in this process: a process start per command is slow. */
async function ctl(args: string[], input = '') {
  const out: string[] = [];
  const err: string[] = [];
  const status = await energyctl(
    args,
    { ENERGY_DATABASE_URL: url },
    (line) => out.push(line),
    (line) => err.push(line),
    async () => input,
  );
  const text = (lines: string[]) => lines.map((line) => `${line}\n`).join('');
  return { status, stdout: text(out), stderr: text(err) };
}

async function ok(args: string[], input = ''): Promise<string> {
  const result = await ctl(args, input);
  assert.equal(result.status, 0, `${args.join(' ')}: ${result.stderr}`);
  return result.stdout.trim();
}

const tokenOf = (line: string) => (JSON.parse(line) as { token: string }).token;

describe('energyctl operator commands', () => {
  let app: App;
  before(async () => {
    await ok(['users', 'add', '--email', 'ops@example.com', '--password', 'first-password', '--create']);
    // No token cache: a revocation by the CLI is seen by the next request.
    const config = loadEnergyConfig({ ENERGY_LOG_LEVEL: 'silent' }, { databaseUrl: url, tokenCacheTtlMs: 0 });
    app = await buildApp(config, { defaultMetrics: false });
  });
  after(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const status = async (token: string) =>
    (await app.inject({ url: '/api/v1/fan_controls.json', headers: { authorization: `Bearer ${token}` } }))
      .statusCode;
  const signIn = async (password: string) =>
    (
      await app.inject({
        method: 'POST',
        url: '/api/v1/users/authenticate',
        payload: { email: 'ops@example.com', password },
      })
    ).statusCode;

  test('--help, -h and help print the usage on stdout and exit 0', () => {
    for (const args of [['--help'], ['-h'], ['help'], ['users', 'add', '--help']]) {
      const result = spawned(args);
      assert.equal(result.status, 0, args.join(' '));
      assert.match(result.stdout, /^usage: energyctl COMMAND/);
      assert.match(result.stdout, /energyctl tokens revoke ID/);
      assert.equal(result.stderr, '');
    }
    const none = spawned([]);
    assert.equal(none.status, 2, 'no command is wrong usage');
    assert.match(none.stderr, /^usage: energyctl COMMAND/);
  });

  test('tokens issue gives a working token; tokens list shows it by id; tokens revoke ID ends it', async () => {
    const token = tokenOf(await ok(['tokens', 'issue', '--email', 'OPS@example.com']));
    assert.equal(await status(token), 200);
    const listed = JSON.parse(await ok(['tokens', 'list', '--email', 'ops@example.com', '--json'])) as Array<{
      id: number;
    }>;
    assert.equal(listed.length, 2, 'the one from users add, and this one');
    assert.ok(!JSON.stringify(listed).includes(token), 'never the token itself');
    assert.match(await ok(['tokens', 'list', '--email', 'ops@example.com']), /^ID\s+CREATED\n\d+\s+\d{4}-/);
    const newest = listed[0]?.id ?? 0;
    assert.equal(await ok(['tokens', 'revoke', String(newest)]), `revoked token ${newest}`);
    assert.equal(await status(token), 401);

    const missing = await ctl(['tokens', 'revoke', String(newest)]);
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, new RegExp(`energyctl: no token with id ${newest}\\n$`));
  });

  test('tokens revoke --email --all ends every token of the user', async () => {
    const tokens = [
      tokenOf(await ok(['tokens', 'issue', '--email', 'ops@example.com'])),
      tokenOf(await ok(['tokens', 'issue', '--email', 'ops@example.com'])),
    ];
    assert.deepEqual(await Promise.all(tokens.map(status)), [200, 200]);
    assert.match(
      await ok(['tokens', 'revoke', '--email', 'ops@example.com', '--all']),
      /^revoked \d+ token\(s\)/,
    );
    assert.deepEqual(await Promise.all(tokens.map(status)), [401, 401]);
    assert.equal(
      (await ctl(['tokens', 'revoke', '--email', 'ops@example.com'])).status,
      2,
      '--all is required',
    );
  });

  test('users reset-password: the new password signs in, the old one not, and tokens end unless kept', async () => {
    const kept = tokenOf(await ok(['tokens', 'issue', '--email', 'ops@example.com']));
    assert.match(
      await ok(
        ['users', 'reset-password', '--email', 'ops@example.com', '--password-stdin', '--keep-tokens'],
        'second-password\n',
      ),
      /reset; 0 token\(s\) revoked/,
    );
    assert.equal(await signIn('first-password'), 401);
    assert.equal(await signIn('second-password'), 200);
    assert.equal(await status(kept), 200, '--keep-tokens keeps them');

    assert.match(
      await ok(['users', 'reset-password', '--email', 'ops@example.com', '--password', 'third-password']),
      /reset; [1-9]\d* token\(s\) revoked/,
    );
    assert.equal(await status(kept), 401, 'a reset without --keep-tokens ends them');
    assert.equal(await signIn('third-password'), 200);
  });

  test('users list shows each user with its live tokens, as a table or JSON', async () => {
    await ok(['users', 'add', '--email', 'second@example.com', '--password', 'second-password']);
    const users = JSON.parse(await ok(['users', 'list', '--json'])) as Array<{
      email: string;
      tokens: number;
    }>;
    assert.deepEqual(
      users.map((user) => [user.email, user.tokens > 0]),
      [
        ['ops@example.com', true],
        ['second@example.com', true],
      ],
    );
    assert.match(
      await ok(['users', 'list']),
      /^ID\s+EMAIL\s+TOKENS\s+CREATED\n\d+\s+ops@example\.com\s+\d+\s+\d{4}-/,
    );
  });

  test('an unknown user, a bad id and a stray option are refused with a message', async () => {
    const unknown = await ctl(['tokens', 'issue', '--email', 'nobody@example.com']);
    assert.equal(unknown.status, 1);
    assert.match(unknown.stderr, /energyctl: no user with email nobody@example\.com\n$/);
    assert.equal((await ctl(['tokens', 'revoke', 'abc'])).status, 2);
    const stray = await ctl(['users', 'list', '--email', 'ops@example.com']);
    assert.equal(stray.status, 2);
    assert.match(stray.stderr, /--email is not an option of this command/);
    const unknownCommand = await ctl(['users', 'remove']);
    assert.equal(unknownCommand.status, 2);
    assert.match(unknownCommand.stderr, /unknown command 'users remove'/);
  });
});
