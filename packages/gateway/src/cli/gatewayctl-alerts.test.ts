/**
 * gatewayctl's alerts commands: thresholds and webhook set and shown, the signing secret printed
 * once and rotatable, bad input refused, every change in the audit trail.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Database, openDatabase } from '@app/db';
import pino from 'pino';
import { detectCrossings } from '../alerts/detect.ts';
import type { GatewayDatabase } from '../db/schema.ts';
import { main } from './gatewayctl.ts';

interface Result {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

describe('gatewayctl alerts', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
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
  const fails = async (code: number, pattern: RegExp, ...args: string[]) => {
    const result = await ctl(...args);
    assert.equal(result.code, code, `${args.join(' ')}: ${result.stdout}${result.stderr}`);
    assert.match(result.stderr, pattern);
    assert.equal(result.stdout, '');
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gatewayctl-alerts-'));
    env = { GATEWAY_DATABASE_URL: `sqlite:${join(dir, 'g.db')}`, GATEWAY_DATA_DIR: dir };
    await ok('projects', 'add', 'team', '--create');
    await ok('allocations', 'set', 'team', 'developer', '10');
    database = await openDatabase<GatewayDatabase>(String(env.GATEWAY_DATABASE_URL));
  });
  after(async () => {
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows the defaults, sets thresholds and a webhook, and prints the signing secret only once', async () => {
    assert.equal(
      await ok('alerts', 'show', 'team'),
      'team budget alerts: thresholds 50, 80, 100%; no webhook\nno alerts yet',
    );
    const set = await ok(
      'alerts',
      'set',
      'team',
      '--thresholds',
      '90,25',
      '--webhook',
      'https://hooks.example.com/b/T0K3N?x=1',
    );
    const secret = /^webhook signing secret \(shown once\): (whsec_[A-Za-z0-9_-]{43})$/m.exec(set)?.[1];
    assert.ok(secret, set);
    assert.match(set, /^team budget alerts: thresholds 25, 90%; webhook to hooks\.example\.com$/m);
    const again = await ok('alerts', 'set', 'team', '--thresholds', '50,80');
    assert.ok(!again.includes('whsec_'), 'an existing secret is not printed again');
    const shown = await ok('alerts', 'show', 'team', '--json');
    assert.ok(!shown.includes(secret));
    assert.deepEqual(JSON.parse(shown), {
      slug: 'team',
      thresholds: [50, 80],
      webhookUrl: 'https://hooks.example.com/b/T0K3N?x=1',
      hasSecret: true,
      alerts: [],
    });
    const rotated = await ok('alerts', 'rotate-secret', 'team');
    const next = /(whsec_\S+)$/.exec(rotated)?.[1];
    assert.ok(next && next !== secret);
    const stored = await database.db
      .selectFrom('alert_settings')
      .select('webhook_secret')
      .executeTakeFirstOrThrow();
    assert.equal(stored.webhook_secret, next);
    const trail = await database.db
      .selectFrom('audit_events')
      .select(['action', 'detail'])
      .orderBy('id')
      .execute();
    const alertTrail = trail
      .filter((row) => row.action.startsWith('alerts.'))
      .map((row) => ({ action: row.action, detail: row.detail }));
    assert.deepEqual(alertTrail, [
      { action: 'alerts.set', detail: 'thresholds 25, 90%; webhook to hooks.example.com' },
      { action: 'alerts.set', detail: 'thresholds 50, 80%; webhook to hooks.example.com' },
      { action: 'alerts.rotate_secret', detail: 'new webhook signing secret' },
    ]);
    assert.ok(!JSON.stringify(trail).includes('T0K3N'), 'the URL path is not in the trail');
  });

  it('lists the alerts recorded, and dismisses them', async () => {
    await database.db.updateTable('allocations').set({ spent_micros: 6_000_000 }).execute();
    assert.equal(await detectCrossings(database.db, pino({ level: 'silent' })), 1);
    const shown = await ok('alerts', 'show', 'team');
    assert.match(shown, /^PROVIDER +THRESHOLD +EPOCH +CROSSED +DELIVERY +ATTEMPTS +DISMISSED +ID$/m);
    assert.match(shown, /^developer +50% +0 +\S+ +pending +0 +- +[0-9a-f-]{36}$/m);
    await database.db
      .updateTable('budget_alerts')
      .set({ last_error: 'HTTP 500: \u001b[2J\u001b]0;pwned\u0007boom\u202E!\u0000' })
      .execute();
    const failing = await ctl('alerts', 'show', 'team');
    assert.match(failing.stdout, /^[0-9a-f-]{36} last error: HTTP 500: \[2J\]0;pwnedboom!$/m);
    const json = await ctl('alerts', 'show', 'team', '--json');
    for (const output of [failing.stdout, json.stdout])
      assert.ok(
        output.split('\n').every((line) => !/[\p{Cc}\p{Cf}]/u.test(line)),
        'no control characters printed',
      );
    assert.equal(await ok('alerts', 'dismiss', 'team'), 'team: 1 alert dismissed');
    assert.match(await ok('alerts', 'show', 'team'), /^developer +50% .* yes /m);
  });

  it('refuses bad thresholds and URLs (exit 1) and wrong usage (exit 2)', async () => {
    await fails(1, /'0,50' is not a list of thresholds/, 'alerts', 'set', 'team', '--thresholds', '0,50');
    await fails(1, /'fifty' is not a list/, 'alerts', 'set', 'team', '--thresholds', 'fifty');
    await fails(1, /must use https/, 'alerts', 'set', 'team', '--webhook', 'http://hooks.example.com/x');
    await fails(1, /must use https/, 'alerts', 'set', 'team', '--webhook', 'http://127.0.0.1:9/x');
    for (const internal of ['https://169.254.169.254/x', 'https://10.1.2.3/x', 'https://[fd00::1]/x'])
      await fails(1, /private, loopback or link-local/, 'alerts', 'set', 'team', '--webhook', internal);
    await fails(
      1,
      /user name or password/,
      'alerts',
      'set',
      'team',
      '--webhook',
      'https://u:p@hooks.example.com/',
    );
    await fails(1, /No project 'nope'/, 'alerts', 'show', 'nope');
    await fails(2, /needs --thresholds and\/or --webhook/, 'alerts', 'set', 'team');
    await fails(2, /--email is not an option/, 'alerts', 'show', 'team', '--email', 'x@example.com');
    await ok('alerts', 'set', 'team', '--webhook', 'none');
    await fails(1, /has no webhook: set one first/, 'alerts', 'rotate-secret', 'team');
    const stored = await database.db.selectFrom('alert_settings').select('webhook_secret').executeTakeFirst();
    assert.equal(stored?.webhook_secret, null, 'the secret went with the webhook');
    assert.match(
      await ok('alerts', 'set', 'team', '--webhook', 'https://hooks.example.com/again'),
      /signing secret \(shown once\): whsec_/,
      'a webhook set again gets a new secret, shown',
    );
  });

  it('accepts http to localhost only with ALLOW_HTTP=loopback and ALLOW_PRIVATE=true', async () => {
    const quiet = { out: () => {}, err: () => {} };
    const set = (url: string, extra: Record<string, string>) =>
      main(['alerts', 'set', 'team', '--webhook', url], { ...env, ...extra }, quiet);
    const loopback = { GATEWAY_ALERT_WEBHOOK_ALLOW_HTTP: 'loopback' };
    const local = { ...loopback, GATEWAY_ALERT_WEBHOOK_ALLOW_PRIVATE: 'true' };
    assert.equal(await set('http://localhost:8099/hook', local), 0);
    assert.equal(await set('http://localhost:8099/hook', loopback), 1, 'localhost is a private address');
    assert.equal(await set('https://app.localhost/hook', {}), 1);
    assert.equal(await set('http://10.0.0.8/hook', local), 1, 'http to localhost only');
    assert.equal(await set('https://10.0.0.8/hook', local), 0, 'private addresses allowed');
  });
});
