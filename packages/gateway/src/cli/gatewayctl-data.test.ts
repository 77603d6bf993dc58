/**
 * gatewayctl finds the gateway's data wherever it is run from, says when it had to create a
 * database, and shows money to the micro-dollar it is stored in (the same figures /v1/account
 * returns).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { after, describe, it } from 'node:test';
import { openDatabase } from '@app/db';
import { PROJECT_ROOT } from '@app/http-kit';
import { startSimulator } from '@app/upstream-simulator';
import { buildApp } from '../app.ts';
import { ledgersSettled } from '../ledger/testing.ts';
import { loadGatewayConfig } from '../config.ts';
import type { GatewayDatabase } from '../db/schema.ts';
import { main } from './gatewayctl.ts';

const BIN = join(import.meta.dirname, '../../bin/gatewayctl.js');

function run(cwd: string, env: NodeJS.ProcessEnv, ...args: string[]) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd, env }, (error, stdout, stderr) => {
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
    });
  });
}

describe('gatewayctl from a subdirectory', () => {
  // Relative paths, as in the embedded default, in a directory of the project's own data/.
  const name = `gatewayctl-cwd-${process.pid}-${Date.now()}`;
  const dataDir = join(PROJECT_ROOT, 'data', name);
  const env = {
    PATH: process.env.PATH,
    GATEWAY_DATA_DIR: `./data/${name}`,
    GATEWAY_DATABASE_URL: `sqlite:./data/${name}/gateway.db`,
  };
  const elsewhere = mkdtempSync(join(tmpdir(), 'gatewayctl-cwd-'));
  after(() => {
    rmSync(dataDir, { recursive: true, force: true });
    rmSync(elsewhere, { recursive: true, force: true });
  });

  it('opens the database the service opens, names it on stderr, and creates it only with --create', async () => {
    const path = join(dataDir, 'gateway.db');
    const refused = await run(elsewhere, env, 'users', 'add', '--email', 'a@example.com');
    assert.equal(refused.code, 1);
    assert.equal(
      refused.stderr.trim(),
      `gatewayctl: no database at ${path}; set GATEWAY_DATABASE_URL (and GATEWAY_DATABASE_SCHEMA) to the gateway service's database, or pass --create to create a new, empty one there`,
    );
    assert.equal(existsSync(path), false, 'nothing created without --create');

    const first = await run(elsewhere, env, 'users', 'add', '--email', 'a@example.com', '--create');
    assert.equal(first.code, 0, first.stderr);
    assert.equal(first.stderr.trim(), `gatewayctl: database: ${path} (new, empty: created now)`);
    assert.deepEqual(readdirSync(elsewhere), [], 'nothing created in the current directory');

    // A real subdirectory of the project, as an operator's shell would be in.
    const subdirectory = join(PROJECT_ROOT, 'packages', 'gateway', 'src');
    const second = await run(subdirectory, env, 'users', 'add', '--email', 'b@example.com');
    assert.equal(second.code, 0, second.stderr);
    assert.equal(second.stdout.trim(), 'created user 2 b@example.com', 'the same database');
    assert.equal(second.stderr.trim(), `gatewayctl: database: ${path}`, 'named on every write');
    assert.equal(existsSync(join(subdirectory, 'data')), false);

    const service = loadGatewayConfig(env);
    assert.equal(service.databaseUrl, `sqlite:${join(dataDir, 'gateway.db')}`);
    assert.equal(relative(PROJECT_ROOT, service.dataDir), join('data', name));
  });
});

describe('gatewayctl signing key', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatewayctl-key-'));
  const env = { GATEWAY_DATABASE_URL: `sqlite:${join(dir, 'g.db')}`, GATEWAY_DATA_DIR: dir };
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('says when `tokens issue` has to generate the signing key, once', async () => {
    const err: string[] = [];
    const io = { out: () => {}, err: (line: string) => err.push(line) };
    for (const args of [
      ['users', 'add', '--email', 'k@example.com', '--create'],
      ['projects', 'add', 'keys'],
      ['members', 'request', 'keys', 'k@example.com'],
      ['members', 'approve', 'keys', 'k@example.com'],
      ['allocations', 'set', 'keys', 'developer', '1'],
    ])
      assert.equal(await main(args, env, io), 0, err.join('\n'));
    err.length = 0;
    const issue = ['tokens', 'issue', '--email', 'k@example.com', '--project', 'keys'];
    assert.equal(await main(issue, env, io), 0);
    const database = `gatewayctl: database: ${join(dir, 'g.db')}`;
    assert.deepEqual(err, [
      database,
      `gatewayctl: no signing key at ${join(dir, 'signing-keys.json')}; generating a new one there`,
    ]);
    err.length = 0;
    assert.equal(await main(issue, env, io), 0);
    assert.deepEqual(err, [database], 'the key exists now: nothing more to say');
  });
});

describe('gatewayctl money', () => {
  const dir = mkdtempSync(join(tmpdir(), 'gatewayctl-money-'));
  const env = { GATEWAY_DATABASE_URL: `sqlite:${join(dir, 'g.db')}`, GATEWAY_DATA_DIR: dir };
  after(() => rmSync(dir, { recursive: true, force: true }));

  async function ctl(...args: string[]): Promise<string> {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(args, env, { out: (l) => out.push(l), err: (l) => err.push(l) });
    assert.equal(code, 0, `${args.join(' ')}: ${err.join('\n')}`);
    return out.join('\n');
  }

  it('prints an allocation to the micro-dollar', async () => {
    await ctl('projects', 'add', 'p', '--create');
    assert.equal(
      await ctl('allocations', 'set', 'p', 'cloud_b', '0.0001'),
      'p/cloud_b allocation set to $0.0001',
    );
    assert.equal(await ctl('allocations', 'set', 'p', 'cloud_a', '25'), 'p/cloud_a allocation set to $25.00');
  });

  it('shows in `usage` the spending /v1/account reports, not $0.00', async () => {
    for (const args of [
      ['users', 'add', '--email', 'dev@example.com'],
      ['projects', 'add', 'lab'],
      ['members', 'request', 'lab', 'dev@example.com'],
      ['members', 'approve', 'lab', 'dev@example.com'],
      ['allocations', 'set', 'lab', 'developer', '1'],
    ])
      await ctl(...args);
    const token = await ctl('tokens', 'issue', '--email', 'dev@example.com', '--project', 'lab');
    const sim = await startSimulator();
    const config = loadGatewayConfig(env, { overrides: { logLevel: 'silent' } });
    const app = await buildApp(config, {
      database: await openDatabase<GatewayDatabase>(config.databaseUrl),
      simulatorUrl: sim.url,
      env: sim.credentialEnv,
      defaultMetrics: false,
    });
    try {
      const headers = { authorization: `Bearer ${token}` };
      for (let i = 0; i < 2; i++) {
        const chat = await app.inject({
          method: 'POST',
          url: '/v1/chat/completions',
          headers,
          payload: { model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'Say hello!' }] },
        });
        assert.equal(chat.statusCode, 200, chat.body);
      }
      let spent = 0;
      for (let tries = 0; tries < 200 && spent === 0; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        const account = (await app.inject({ url: '/v1/account', headers })).json() as {
          allocations: Array<{ provider: string; spent: number; reserved: number }>;
        };
        const bucket = account.allocations.find((a) => a.provider === 'developer');
        if (bucket?.reserved === 0) spent = bucket.spent;
      }
      assert.ok(spent > 0 && spent < 0.01, `a few requests cost under a cent (got ${spent})`);
      // gatewayctl reads the usage table, which the ledger group-commits within its flush interval.
      await ledgersSettled();
      const row = (await ctl('usage', 'lab')).split('\n').find((line) => line.startsWith('developer'));
      const shown = row?.split(/\s+/)[2];
      assert.equal(shown, `$${spent}`, row);
    } finally {
      await app.close();
      await sim.close();
    }
  });
});
