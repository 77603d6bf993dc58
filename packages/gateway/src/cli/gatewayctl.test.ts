import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { openDatabase } from '@app/db';
import type { App } from '@app/http-kit';
import { buildApp } from '../app.ts';
import { loadGatewayConfig } from '../config.ts';
import type { GatewayDatabase } from '../db/schema.ts';
import { main } from './gatewayctl.ts';

const CLI = join(import.meta.dirname, 'gatewayctl.ts');

interface Result {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

describe('gatewayctl', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  const ctl = (...args: string[]) =>
    new Promise<Result>((resolve) => {
      execFile(process.execPath, [CLI, ...args], { env }, (error, stdout, stderr) => {
        resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr });
      });
    });
  /** The same entry point the bin calls, in this process: fast for the long list of refusals. */
  const inProcess = async (...args: string[]): Promise<Result> => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await main(args, env, { out: (l) => out.push(l), err: (l) => err.push(l) });
    return { code, stdout: out.join('\n'), stderr: err.join('\n') };
  };
  const refused = async (pattern: RegExp, ...args: string[]) => {
    const result = await inProcess(...args);
    assert.equal(result.code, 1, `${args.join(' ')} exits 1: ${result.stdout}${result.stderr}`);
    assert.match(result.stderr, pattern, args.join(' '));
    assert.equal(result.stdout, '');
  };
  const okInProcess = async (...args: string[]) => {
    const result = await inProcess(...args);
    assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
    return result.stdout.trim();
  };
  const ok = async (...args: string[]) => {
    const result = await ctl(...args);
    assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
    return result.stdout.trim();
  };
  const fails = async (code: number, pattern: RegExp, ...args: string[]) => {
    const result = await ctl(...args);
    assert.equal(result.code, code, `${args.join(' ')} exits ${code}: ${result.stdout}${result.stderr}`);
    assert.match(result.stderr, pattern, args.join(' '));
    assert.equal(result.stdout, '', 'nothing on stdout when refused');
  };

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gatewayctl-'));
    env = {
      PATH: process.env.PATH,
      GATEWAY_DATABASE_URL: `sqlite:${join(dir, 'g.db')}`,
      GATEWAY_DATA_DIR: dir,
    };
    assert.equal(
      await ok('users', 'add', '--email', 'Alice@Example.com', '--admin', '--create'),
      'created user 1 alice@example.com (admin)',
    );
    await okInProcess('projects', 'add', 'demo', '--ip-allow', '10.0.0.0/8,::1');
    await okInProcess('projects', 'add', 'empty');
    await okInProcess('users', 'add', '--email', 'bob@example.com');
  });
  after(() => rmSync(dir, { recursive: true, force: true }));

  it('prints help with --help and usage on stderr with exit 2 without arguments', async () => {
    assert.match(await ok('--help'), /gatewayctl tokens issue --email E --project SLUG/);
    const bare = await ctl();
    assert.equal(bare.code, 2);
    assert.match(bare.stderr, /Usage:/);
  });

  it('rejects wrong usage with exit 2', async () => {
    await Promise.all([
      fails(2, /unknown command 'frob'/, 'frob'),
      fails(2, /unknown command 'users delete'/, 'users', 'delete'),
      fails(2, /Unknown option '--bogus'/, 'users', 'add', '--bogus'),
      fails(2, /missing --email/, 'users', 'add'),
      fails(2, /missing SLUG/, 'projects', 'add'),
      fails(2, /missing EMAIL/, 'members', 'approve', 'demo'),
      fails(
        2,
        /USD must be an amount in US dollars from 0 to 1000000000, such as 25 or 12.50; got 'abc'/,
        'allocations',
        'set',
        'demo',
        'cloud_a',
        'abc',
      ),
      fails(2, /unexpected argument 'extra'/, 'allocations', 'set', 'demo', 'cloud_a', '5', 'extra'),
      fails(2, /missing --project/, 'tokens', 'issue', '--email', 'alice@example.com'),
      fails(2, /missing JTI/, 'tokens', 'revoke'),
      fails(
        2,
        /--admin is not an option of 'tokens list'/,
        'tokens',
        'list',
        '--email',
        'a@example.com',
        '--admin',
      ),
      fails(2, /Option '--email <value>' argument missing/, 'tokens', 'list', '--email'),
    ]);
  });

  it('refuses bad input with a clear message and exit 1 (as a process)', async () => {
    await Promise.all([
      fails(1, /'not-an-email' is not an email address/, 'users', 'add', '--email', 'not-an-email'),
      fails(1, /No project 'nope'. Create it with: npx gatewayctl projects add nope$/m, 'usage', 'nope'),
    ]);
  });

  it('refuses every kind of bad input with a clear message and exit 1', async () => {
    const cases: [RegExp, ...string[]][] = [
      [/user with email alice@example.com already exists/, 'users', 'add', '--email', 'alice@example.com'],
      [/'Bad_Slug' is not a valid project slug/, 'projects', 'add', 'Bad_Slug'],
      [
        /Not an IPv4\/IPv6 address or CIDR: 10\.0\.0\.0\/33/,
        'projects',
        'add',
        'p2',
        '--ip-allow',
        '10.0.0.0/33',
      ],
      [/Project 'demo' already exists/, 'projects', 'add', 'demo'],
      [/No project 'nope'/, 'members', 'request', 'nope', 'alice@example.com'],
      [/No user with email carol@example.com/, 'members', 'request', 'demo', 'carol@example.com'],
      [/has not requested membership of 'empty'/, 'members', 'approve', 'empty', 'bob@example.com'],
      [/is not a member of 'empty'/, 'members', 'revoke', 'empty', 'bob@example.com'],
      [/Unknown provider 'cloud_z'/, 'allocations', 'set', 'demo', 'cloud_z', '5'],
      [/between 0 and 1000000000/, 'allocations', 'set', 'demo', 'cloud_a', '2000000000'],
      [
        /'10000000000' is not an amount in US dollars between 0 and 1000000000/,
        'allocations',
        'set',
        'demo',
        'cloud_a',
        '1e10',
      ],
      [/No project 'nope'/, 'allocations', 'set', 'nope', 'cloud_a', '5'],
      [/No project 'nope'/, 'tokens', 'issue', '--email', 'alice@example.com', '--project', 'nope'],
      [/No user with email carol@example.com/, 'tokens', 'list', '--email', 'carol@example.com'],
      [/No token with id 'nope'/, 'tokens', 'revoke', 'nope'],
    ];
    for (const [pattern, ...args] of cases) await refused(pattern, ...args);
  });

  it('issues tokens only to approved members of a project with an allocation, within the lifetime cap', async () => {
    const issue = (email: string, ...extra: string[]) => [
      'tokens',
      'issue',
      '--email',
      email,
      '--project',
      'demo',
      ...extra,
    ];
    await fails(
      1,
      /alice@example.com is not an approved member of 'demo' \(no membership\)/,
      ...issue('alice@example.com'),
    );
    assert.equal(
      await okInProcess('members', 'request', 'demo', 'alice@example.com'),
      'alice@example.com: pending membership of demo',
    );
    await refused(/not an approved member of 'demo' \(pending\)/, ...issue('alice@example.com'));
    assert.match(
      await okInProcess('members', 'approve', 'demo', 'alice@example.com', '--admin'),
      /approved .*project admin/,
    );
    await refused(/already an approved member/, 'members', 'request', 'demo', 'alice@example.com');
    await refused(/Project 'demo' has no gateway allocation/, ...issue('alice@example.com'));
    assert.equal(
      await okInProcess('allocations', 'set', 'demo', 'cloud_a', '25'),
      'demo/cloud_a allocation set to $25.00',
    );
    await refused(/'soon' is not a lifetime/, ...issue('alice@example.com', '--ttl', 'soon'));
    await refused(/at most 30d; '31d' is longer/, ...issue('alice@example.com', '--ttl', '31d'));
    const token = await ok(...issue('alice@example.com', '--ttl', '2h', '--description', 'laptop'));
    assert.match(token, /^[\w-]+\.[\w-]+\.[\w-]+$/, 'only the token is printed');
    const listed = await okInProcess('tokens', 'list', '--email', 'alice@example.com');
    assert.match(listed, /demo\s+active\s+.*laptop/);
    assert.match(await okInProcess('usage', 'demo'), /cloud_a\s+\$25\.00\s+\$0\.00\s+\$0\.00\s+\$25\.00\s+0/);
    assert.match(
      await okInProcess('members', 'revoke', 'demo', 'alice@example.com'),
      /revoked membership of demo/,
    );
    await refused(/\(revoked\)/, ...issue('alice@example.com'));
  });

  it('lists users, projects, members and tokens as a table, or as JSON with --json', async () => {
    await okInProcess('users', 'add', '--email', 'lister@example.com');
    await okInProcess('users', 'add', '--email', 'asker@example.com');
    await okInProcess('projects', 'add', 'listed', '--ip-allow', '192.0.2.0/24');
    await okInProcess('members', 'request', 'listed', 'lister@example.com');
    await okInProcess('members', 'approve', 'listed', 'lister@example.com', '--admin');
    await okInProcess('members', 'request', 'listed', 'asker@example.com');
    await okInProcess('allocations', 'set', 'listed', 'developer', '5');
    const token = await okInProcess(
      'tokens',
      'issue',
      '--email',
      'lister@example.com',
      '--project',
      'listed',
    );

    const users = JSON.parse(await okInProcess('users', 'list', '--json')) as Array<Record<string, unknown>>;
    assert.deepEqual(
      users.find((user) => user.email === 'lister@example.com'),
      { ...users.find((user) => user.email === 'lister@example.com'), isAdmin: false, projects: 1 },
    );
    assert.match(await okInProcess('users', 'list'), /^ID\s+EMAIL\s+ADMIN\s+PROJECTS\s+CREATED$/m);

    const projects = JSON.parse(await okInProcess('projects', 'list', '--json')) as Array<
      Record<string, unknown>
    >;
    const listed = projects.find((project) => project.slug === 'listed');
    assert.deepEqual(
      [listed?.approvedMembers, listed?.pendingMembers, listed?.ipAllow],
      [1, 1, ['192.0.2.0/24']],
    );
    assert.match(await okInProcess('projects', 'list'), /^\d+\s+listed\s+1\s+1\s+192\.0\.2\.0\/24\s/m);

    const members = JSON.parse(await okInProcess('members', 'list', 'listed', '--json')) as unknown[];
    assert.deepEqual(
      members.map((member) => {
        const { email, status, isAdmin } = member as Record<string, unknown>;
        return [email, status, isAdmin];
      }),
      [
        ['asker@example.com', 'pending', false],
        ['lister@example.com', 'approved', true],
      ],
    );
    assert.match(
      await okInProcess('members', 'list', 'listed'),
      /^lister@example\.com\s+approved\s+admin\s/m,
    );
    await refused(/No project 'nope'/, 'members', 'list', 'nope');

    const tokens = JSON.parse(
      await okInProcess('tokens', 'list', '--project', 'listed', '--json'),
    ) as unknown[];
    assert.equal(tokens.length, 1);
    const [only] = tokens as Array<Record<string, unknown>>;
    assert.deepEqual(
      [only?.email, only?.projectSlug, only?.state],
      ['lister@example.com', 'listed', 'active'],
    );
    assert.ok(!JSON.stringify(tokens).includes(token), 'a listing never shows the token itself');
    assert.match(
      await okInProcess('tokens', 'list', '--project', 'listed'),
      /lister@example\.com\s+listed\s+active/,
    );
    assert.equal(await okInProcess('tokens', 'list', '--project', 'empty'), 'no tokens');
  });

  it('changes the IP allowlist of an existing project; none lifts it; bad ranges are refused', async () => {
    await okInProcess('projects', 'add', 'fenced');
    assert.equal(
      await okInProcess('projects', 'ip-allow', 'fenced', '10.0.0.0/8,2001:db8::/32'),
      'fenced IP allowlist: 10.0.0.0/8, 2001:db8::/32',
    );
    assert.equal(
      await okInProcess('projects', 'ip-allow', 'fenced', 'none'),
      'fenced IP allowlist: any address',
    );
    await refused(/not an IPv4\/IPv6 address or CIDR/i, 'projects', 'ip-allow', 'fenced', '10.0.0.0/99');
    await refused(/No project 'nowhere'/, 'projects', 'ip-allow', 'nowhere', '10.0.0.0/8');
    await fails(2, /missing CIDRS/, 'projects', 'ip-allow', 'fenced');
  });

  it('sets and shows rate limits per project and per token; none removes one, an option left out keeps it', async () => {
    await okInProcess('projects', 'add', 'limited');
    assert.equal(await okInProcess('limits', 'show', 'limited'), 'project: none\neach token: none');
    assert.equal(
      await okInProcess('limits', 'set', 'limited', 'project', '--rpm', '600', '--tpm', '2000000'),
      'limited project limits: 600 requests/min, 2000000 tokens/min',
    );
    assert.equal(
      await okInProcess('limits', 'set', 'limited', 'token', '--concurrency', '4'),
      'limited token limits: 4 at once',
    );
    assert.equal(
      await okInProcess('limits', 'set', 'limited', 'project', '--tpm', 'none', '--concurrency', '0'),
      'limited project limits: 600 requests/min, 0 at once',
    );
    assert.equal(
      await okInProcess('limits', 'show', 'limited'),
      'project: 600 requests/min, 0 at once\neach token: 4 at once',
    );
    await refused(
      /scope is 'project' or 'token', not 'team'/,
      'limits',
      'set',
      'limited',
      'team',
      '--rpm',
      '1',
    );
    await refused(/No project 'nope'/, 'limits', 'show', 'nope');
    await fails(
      2,
      /--rpm must be a whole number or 'none', got '-1'/,
      'limits',
      'set',
      'limited',
      'token',
      '--rpm=-1',
    );
    await fails(
      2,
      /--tpm must be a whole number or 'none', got '1.5'/,
      'limits',
      'set',
      'limited',
      'token',
      '--tpm',
      '1.5',
    );
  });

  it('reports an invalid configuration, naming the variable, with exit 1', async () => {
    const saved = env;
    env = { ...env, GATEWAY_TOKEN_TTL: 'forever' };
    try {
      await fails(1, /GATEWAY_TOKEN_TTL: must be a duration/, 'users', 'add', '--email', 'x@example.com');
    } finally {
      env = saved;
    }
  });
});

describe('gatewayctl tokens against the running gateway', () => {
  let dir: string;
  let env: NodeJS.ProcessEnv;
  let app: App;
  const ctl = (...args: string[]) =>
    new Promise<string>((resolve, reject) => {
      execFile(process.execPath, [CLI, ...args], { env }, (error, stdout, stderr) =>
        error ? reject(new Error(stderr)) : resolve(stdout.trim()),
      );
    });
  const account = (token: string) =>
    app.inject({ url: '/v1/account', headers: { authorization: `Bearer ${token}` } });

  before(async () => {
    dir = mkdtempSync(join(tmpdir(), 'gatewayctl-http-'));
    env = {
      PATH: process.env.PATH,
      GATEWAY_DATABASE_URL: `sqlite:${join(dir, 'g.db')}`,
      GATEWAY_DATA_DIR: dir,
    };
    for (const args of [
      ['users', 'add', '--email', 'dev@example.com', '--create'],
      ['projects', 'add', 'lab'],
      ['members', 'request', 'lab', 'dev@example.com'],
      ['members', 'approve', 'lab', 'dev@example.com'],
      ['allocations', 'set', 'lab', 'developer', '3.5'],
    ]) {
      // Set-up through the same entry point in this process; the tests below spawn the CLI.
      const quiet = {
        out: () => {},
        err: (line: string) => assert.match(line, /^gatewayctl: database: /, 'only the database line'),
      };
      assert.equal(await main(args, env, quiet), 0);
    }
    const config = loadGatewayConfig(env, { overrides: { logLevel: 'silent' } });
    app = await buildApp(config, {
      database: await openDatabase<GatewayDatabase>(config.databaseUrl),
      defaultMetrics: false,
    });
  });
  after(async () => {
    await app.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a token issued by the CLI is accepted, then refused once revoked by the CLI', async () => {
    const token = await ctl('tokens', 'issue', '--email', 'dev@example.com', '--project', 'lab');
    const response = await account(token);
    assert.equal(response.statusCode, 200);
    const body = response.json() as { token: { id: string }; allocations: unknown[] };
    assert.deepEqual(body.allocations, [
      { provider: 'developer', allocated: 3.5, spent: 0, reserved: 0, remaining: 3.5 },
    ]);
    assert.match(await ctl('tokens', 'revoke', body.token.id), /^revoked token /);
    await sleep(1050);
    assert.equal((await account(token)).json().error.code, 'gateway_invalid_token');
  });

  it('a token issued with a short --ttl expires: 401 gateway_token_expired', async () => {
    const token = await ctl(
      'tokens',
      'issue',
      '--email',
      'dev@example.com',
      '--project',
      'lab',
      '--ttl',
      '1s',
    );
    await sleep(1100);
    const response = await account(token);
    assert.equal(response.statusCode, 401);
    assert.equal(response.json().error.code, 'gateway_token_expired');
  });
});
