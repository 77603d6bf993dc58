/**
 * gatewayctl's admin-keys commands: a key is printed once, listed without its secret, scoped,
 * bounded in lifetime, revoked; and it is what /admin/v1 of a gateway on the same database
 * accepts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Database, openDatabase } from '@app/db';
import type { App } from '@app/http-kit';
import { createAdminKey } from '../access/admin-keys.ts';
import { buildApp } from '../app.ts';
import { loadGatewayConfig } from '../config.ts';
import type { GatewayDatabase } from '../db/schema.ts';
import { main } from './gatewayctl.ts';

interface Result {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

describe('gatewayctl admin-keys', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let app: App;
  let database: Database<GatewayDatabase>;
  const ctl = async (...args: string[]): Promise<Result> => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(args, env, { out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, stdout: out.join('\n'), stderr: err.join('\n') };
  };
  const ok = async (...args: string[]) => {
    const result = await ctl(...args);
    assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
    return result.stdout.trim();
  };
  const api = (key: string, method: 'GET' | 'POST', payload?: object) =>
    app.inject({
      method,
      url: '/admin/v1/users',
      headers: { authorization: `Bearer ${key}` },
      ...(payload ? { payload } : {}),
    });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gatewayctl-admin-keys-'));
    env = { GATEWAY_DATABASE_URL: `sqlite:${join(dir, 'g.db')}`, GATEWAY_DATA_DIR: dir };
    await ok('users', 'add', '--email', 'ops@example.com', '--create');
    const config = loadGatewayConfig(env, { overrides: { logLevel: 'silent' } });
    database = await openDatabase<GatewayDatabase>(config.databaseUrl);
    app = await buildApp(config, { database, defaultMetrics: false });
    app.addHook('onClose', () => database.close());
  });
  after(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('create prints only the key; by default it reads, and writing needs --scopes write', async () => {
    const reader = await ok('admin-keys', 'create', '--description', 'dashboards');
    assert.match(reader, /^gwadm_[A-Za-z0-9_-]{43}$/);
    assert.equal((await api(reader, 'GET')).statusCode, 200);
    assert.equal((await api(reader, 'POST', { email: 'x@example.com' })).statusCode, 403);
    const writer = await ok(
      'admin-keys',
      'create',
      '--description',
      'terraform',
      '--scopes',
      'read,write',
      '--ttl',
      '90d',
    );
    assert.equal((await api(writer, 'POST', { email: 'tf@example.com' })).statusCode, 201);
    const stored = await ok('admin-keys', 'list', '--json');
    assert.ok(!stored.includes(writer.slice(6)) && !stored.includes(reader.slice(6)), 'never the key itself');
  });

  it('list shows id, scopes, state, dates and description, as a table or JSON', async () => {
    const keys = JSON.parse(await ok('admin-keys', 'list', '--json')) as Array<{
      id: number;
      description: string;
      scopes: string[];
      state: string;
      createdAt: string;
      expiresAt: string;
    }>;
    const terraform = keys.find((k) => k.description === 'terraform');
    assert.deepEqual([terraform?.scopes, terraform?.state], [['read', 'write'], 'active']);
    const days =
      (Date.parse(terraform?.expiresAt ?? '') - Date.parse(terraform?.createdAt ?? '')) / 86_400_000;
    assert.equal(days, 90);
    const dashboards = keys.find((k) => k.description === 'dashboards');
    const defaultDays =
      (Date.parse(dashboards?.expiresAt ?? '') - Date.parse(dashboards?.createdAt ?? '')) / 86_400_000;
    assert.deepEqual([dashboards?.scopes, defaultDays], [['read'], 30], 'default scope read, lifetime 30d');
    const table = await ok('admin-keys', 'list');
    assert.match(
      table.split('\n')[0] ?? '',
      /^ID\s+SCOPES\s+STATE\s+CREATED\s+EXPIRES\s+LAST USED\s+DESCRIPTION$/,
    );
    assert.match(table, /read,write\s+active/);
  });

  it('revoke refuses the key from its next request on, and is written to the audit trail', async () => {
    const key = await ok('admin-keys', 'create', '--description', 'leaked');
    assert.equal((await api(key, 'GET')).statusCode, 200);
    const [{ id } = { id: 0 }] = JSON.parse(await ok('admin-keys', 'list', '--json')) as Array<{
      id: number;
    }>;
    assert.match(await ok('admin-keys', 'revoke', String(id)), new RegExp(`^revoked admin key ${id} at 20`));
    const refused = await api(key, 'GET');
    assert.equal(refused.statusCode, 401);
    assert.equal((refused.json() as { error: { code: string } }).error.code, 'admin_key_invalid');
    assert.match(await ok('admin-keys', 'revoke', String(id)), /^revoked admin key/, 'idempotent');
    const list = JSON.parse(await ok('admin-keys', 'list', '--json')) as Array<{ id: number; state: string }>;
    assert.equal(list.find((k) => k.id === id)?.state, 'revoked');
    const trail = await app.inject({
      url: '/admin/v1/audit',
      headers: { authorization: `Bearer ${await ok('admin-keys', 'create', '--description', 'auditor')}` },
    });
    const actions = (trail.json() as { data: Array<{ action: string; subject: string; actor: string }> })
      .data;
    assert.deepEqual(
      actions.filter((e) => e.subject === `admin key ${id}`).map((e) => [e.action, e.actor]),
      [
        ['admin_key.revoke', 'gatewayctl'],
        ['admin_key.create', 'gatewayctl'],
      ],
    );
  });

  it('refuses bad scopes, lifetimes and ids, and wrong usage', async () => {
    const refused = async (code: number, pattern: RegExp, ...args: string[]) => {
      const result = await ctl(...args);
      assert.equal(result.code, code, `${args.join(' ')}: ${result.stdout}${result.stderr}`);
      assert.match(result.stderr, pattern);
      assert.equal(result.stdout, '');
    };
    await refused(
      1,
      /Scopes are read and write \(e\.g\. read,write\); got 'admin'/,
      'admin-keys',
      'create',
      '--description',
      'd',
      '--scopes',
      'admin',
    );
    await refused(
      1,
      /An admin key may live at most 365d; '366d' is longer/,
      'admin-keys',
      'create',
      '--description',
      'd',
      '--ttl',
      '366d',
    );
    await refused(
      1,
      /'soon' is not a lifetime/,
      'admin-keys',
      'create',
      '--description',
      'd',
      '--ttl',
      'soon',
    );
    await refused(2, /missing --description/, 'admin-keys', 'create', '--description', '  ');
    const policy = { defaultTtl: '1d', maxTtl: '1d' };
    await assert.rejects(createAdminKey(database.db, policy, { description: ' ' }), /needs a description/);
    await refused(
      1,
      /No admin key with id '9999'\. List them with: npx gatewayctl admin-keys list/,
      'admin-keys',
      'revoke',
      '9999',
    );
    await refused(2, /missing --description/, 'admin-keys', 'create');
    await refused(2, /ID must be an admin key's id/, 'admin-keys', 'revoke', 'abc');
    await refused(2, /--email is not an option of 'admin-keys list'/, 'admin-keys', 'list', '--email', 'x');
  });

  it('refuses admin key lifetimes it cannot honour at start-up, naming the variable', async () => {
    const saved = env;
    try {
      env = { ...saved, GATEWAY_ADMIN_KEY_TTL: '400d' };
      const longer = await ctl('admin-keys', 'list');
      assert.equal(longer.code, 1);
      assert.match(longer.stderr, /GATEWAY_ADMIN_KEY_TTL=400d is longer than GATEWAY_ADMIN_KEY_MAX_TTL=365d/);
      env = { ...saved, GATEWAY_ADMIN_KEY_MAX_TTL: '36501d' };
      assert.match(
        (await ctl('admin-keys', 'list')).stderr,
        /GATEWAY_ADMIN_KEY_MAX_TTL=36501d is longer than a key can last/,
      );
    } finally {
      env = saved;
    }
  });
});
