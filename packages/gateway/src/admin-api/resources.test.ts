/**
 * Each resource of /admin/v1 through HTTP, its answers and its refusals, on both engines: the
 * statuses and codes of the catalogue, 201 + Location on create, 204 on DELETE, 404 for unknown
 * names, 409 for conflicts. The rules are the access area's (the same as gatewayctl's).
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testEngines } from '@app/db/testing.ts';
import { bearer } from '../access/test-app.ts';
import { type AdminTestApp, type ErrorBody, refusal, startAdminApp } from './testing.ts';

interface List<T> {
  readonly object: 'list';
  readonly data: readonly T[];
}

for (const { engine, skip } of testEngines())
  describe(`admin API resources (${engine})`, { skip }, () => {
    let t: AdminTestApp;
    let key: string;
    const call = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown) =>
      t.call(key, method, path, body);
    const json = async <T>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown) => {
      const response = await call(method, path, body);
      assert.ok(response.statusCode < 300, `${method} ${path}: ${response.statusCode} ${response.body}`);
      return response.json() as T;
    };
    const param = async (method: 'POST' | 'PUT', path: string, body: unknown) =>
      ((await call(method, path, body)).json() as ErrorBody).error.param;

    before(async () => {
      t = await startAdminApp(engine);
      ({ key } = await t.newKey());
    });
    after(() => t.close());

    it('users: create (201 + Location), read, list; invalid, duplicate and unknown emails refused', async () => {
      const created = await call('POST', '/users', { email: 'Alice@Example.com', admin: true });
      assert.equal(created.statusCode, 201);
      assert.equal(created.headers.location, '/admin/v1/users/alice%40example.com');
      const user = created.json() as { id: number; email: string; is_admin: boolean; projects: number };
      assert.deepEqual(
        { ...user, id: 0, created_at: '' },
        {
          object: 'user',
          id: 0,
          email: 'alice@example.com',
          is_admin: true,
          projects: 0,
          created_at: '',
        },
      );
      assert.deepEqual(await json('GET', created.headers.location.replace('/admin/v1', '')), created.json());
      const list = await json<List<{ email: string }>>('GET', '/users');
      assert.ok(list.data.some((u) => u.email === 'alice@example.com'));
      assert.equal(
        refusal(await call('POST', '/users', { email: 'alice@example.com' })),
        '409 duplicate_user',
      );
      assert.equal(refusal(await call('POST', '/users', { email: 'not an email' })), '400 invalid_email');
      assert.equal(await param('POST', '/users', { email: 'nope' }), 'email');
      assert.equal(refusal(await call('GET', '/users/nobody@example.com')), '404 unknown_user');
      assert.equal(
        refusal(await call('POST', '/users', { email: 'x@example.com', extra: 1 })),
        '400 invalid_request',
      );
    });

    it('projects: create with an IP allowlist, read, list, replace the allowlist; refusals', async () => {
      const created = await call('POST', '/projects', {
        slug: 'research',
        ip_allow: ['203.0.113.0/24,2001:db8::/48'],
      });
      assert.equal(created.statusCode, 201);
      assert.equal(created.headers.location, '/admin/v1/projects/research');
      assert.deepEqual((created.json() as { ip_allow: string[] }).ip_allow, [
        '203.0.113.0/24',
        '2001:db8::/48',
      ]);
      const replaced = await json<{ ip_allow: string[] }>('PUT', '/projects/research/ip-allow', {
        ip_allow: [],
      });
      assert.deepEqual(replaced.ip_allow, []);
      assert.deepEqual((await json<{ ip_allow: string[] }>('GET', '/projects/research')).ip_allow, []);
      const slugs = (await json<List<{ slug: string }>>('GET', '/projects')).data.map((p) => p.slug);
      assert.ok(slugs.includes('research'));
      assert.equal(refusal(await call('POST', '/projects', { slug: 'research' })), '409 duplicate_project');
      assert.equal(refusal(await call('POST', '/projects', { slug: 'Not A Slug' })), '400 invalid_slug');
      assert.equal(await param('POST', '/projects', { slug: 'Bad!' }), 'slug');
      const cidr = await call('PUT', '/projects/research/ip-allow', { ip_allow: ['10.0.0.300'] });
      assert.equal(refusal(cidr), '400 invalid_cidr');
      assert.equal((cidr.json() as ErrorBody).error.param, 'ip_allow');
      assert.equal(refusal(await call('GET', '/projects/nope')), '404 unknown_project');
      assert.equal(
        refusal(await call('PUT', '/projects/nope/ip-allow', { ip_allow: [] })),
        '404 unknown_project',
      );
    });

    it('members: request, approve, revoke as gatewayctl does, an unknown project named', async () => {
      await json('POST', '/users', { email: 'bob@example.com' });
      await json('POST', '/projects', { slug: 'team' });
      // Like gatewayctl (not the dashboard's request to join): an unknown project is named.
      const unknown = await call('POST', '/projects/ghost/members', { email: 'bob@example.com' });
      assert.equal(refusal(unknown), '404 unknown_project');
      assert.match((unknown.json() as ErrorBody).error.message, /No project 'ghost'\.$/);
      assert.equal(
        refusal(await call('POST', '/projects/team/members', { email: 'nobody@example.com' })),
        '404 unknown_user',
      );
      assert.equal(
        refusal(await call('POST', '/projects/team/members/bob@example.com/approve')),
        '404 no_membership_request',
      );
      assert.equal(
        refusal(await call('POST', '/projects/team/members/bob@example.com/revoke')),
        '404 not_member',
      );
      assert.equal(refusal(await call('GET', '/projects/team/members/bob@example.com')), '404 not_member');
      const requested = await call('POST', '/projects/team/members', { email: 'bob@example.com' });
      assert.equal(requested.statusCode, 201);
      assert.equal(requested.headers.location, '/admin/v1/projects/team/members/bob%40example.com');
      assert.equal((requested.json() as { status: string }).status, 'pending');
      const approved = await json<{ status: string; is_admin: boolean }>(
        'POST',
        '/projects/team/members/bob@example.com/approve',
        { admin: true },
      );
      assert.deepEqual([approved.status, approved.is_admin], ['approved', true]);
      assert.equal(
        refusal(await call('POST', '/projects/team/members', { email: 'bob@example.com' })),
        '409 already_member',
      );
      const members = await json<List<{ email: string; status: string }>>('GET', '/projects/team/members');
      assert.deepEqual(
        members.data.map((m) => [m.email, m.status]),
        [['bob@example.com', 'approved']],
      );
      const revoked = await json<{ status: string }>('POST', '/projects/team/members/bob@example.com/revoke');
      assert.equal(revoked.status, 'revoked');
      assert.equal(
        (await json<{ status: string }>('GET', '/projects/team/members/bob@example.com')).status,
        'revoked',
      );
      assert.equal(refusal(await call('GET', '/projects/nope/members')), '404 unknown_project');
    });

    it('allocations, rate limits and usage', async () => {
      await json('POST', '/projects', { slug: 'budget' });
      const set = await json<{ provider: string; allocated: number }>(
        'PUT',
        '/projects/budget/allocations/cloud_b',
        {
          usd: 12.5,
        },
      );
      assert.deepEqual(set, {
        object: 'allocation',
        project: 'budget',
        provider: 'cloud_b',
        allocated: 12.5,
      });
      const usage = await json<
        List<{ provider: string; allocated: number; remaining: number; requests: number }>
      >('GET', '/projects/budget/usage');
      assert.deepEqual(
        usage.data.map((b) => [b.provider, b.allocated, b.remaining, b.requests]),
        [['cloud_b', 12.5, 12.5, 0]],
      );
      // Ledger rows of one failed-over request (its second attempt on the same bucket), one with
      // a meter unknown today: one request, every meter summed.
      const db = t.database.db;
      const project = await db
        .selectFrom('projects')
        .select('id')
        .where('slug', '=', 'budget')
        .executeTakeFirstOrThrow();
      const user = await db.selectFrom('users').select('id').executeTakeFirstOrThrow();
      for (const [attempt, meters] of [
        [1, { input: 10 }],
        [2, { input: 10, image_input: 500, output: 3 }],
      ] as const)
        await db
          .insertInto('usage')
          .values({
            token_jti: 'budget-token',
            user_id: user.id,
            project_id: project.id,
            provider: 'cloud_b',
            reserved_micros: 0,
            status: 'ok',
            created_at: new Date().toISOString(),
            attempt,
            new_request: attempt === 1 ? 1 : 0,
            meters: JSON.stringify(meters),
          })
          .execute();
      const metered = await json<List<{ requests: number; meters: Record<string, number> }>>(
        'GET',
        '/projects/budget/usage',
      );
      assert.deepEqual(
        metered.data.map((b) => [b.requests, b.meters]),
        [[1, { input: 20, output: 3, image_input: 500 }]],
      );
      const provider = await call('PUT', '/projects/budget/allocations/cloud_z', { usd: 1 });
      assert.equal(refusal(provider), '400 invalid_provider');
      assert.equal((provider.json() as ErrorBody).error.param, 'provider');
      assert.equal(
        refusal(await call('PUT', '/projects/budget/allocations/developer', { usd: -1 })),
        '400 invalid_amount',
      );
      assert.equal(await param('PUT', '/projects/budget/allocations/developer', { usd: 2e9 }), 'usd');
      assert.equal(
        refusal(await call('PUT', '/projects/nope/allocations/developer', { usd: 1 })),
        '404 unknown_project',
      );
      assert.equal(refusal(await call('GET', '/projects/nope/usage')), '404 unknown_project');

      const limits = await json<{
        limits: { project: Record<string, number | null>; token: Record<string, number | null> };
      }>('PUT', '/projects/budget/limits/project', { requests_per_minute: 600, concurrent_requests: 50 });
      assert.deepEqual(limits.limits.project, {
        requests_per_minute: 600,
        tokens_per_minute: null,
        concurrent_requests: 50,
      });
      // PUT replaces: a dimension left out has no limit.
      await json('PUT', '/projects/budget/limits/project', { tokens_per_minute: 1000 });
      await json('PUT', '/projects/budget/limits/token', { requests_per_minute: 60 });
      const read = await json<typeof limits>('GET', '/projects/budget/limits');
      assert.deepEqual(read.limits, {
        project: { requests_per_minute: null, tokens_per_minute: 1000, concurrent_requests: null },
        token: { requests_per_minute: 60, tokens_per_minute: null, concurrent_requests: null },
      });
      assert.equal(
        refusal(await call('PUT', '/projects/budget/limits/project', { requests_per_minute: -1 })),
        '400 invalid_limit',
      );
      assert.equal(refusal(await call('PUT', '/projects/budget/limits/everyone', {})), '400 invalid_limit');
      assert.equal(refusal(await call('GET', '/projects/nope/limits')), '404 unknown_project');
    });

    it('tokens: issued once to an approved member with an allocation, listed, read, revoked (204)', async () => {
      await json('POST', '/users', { email: 'carol@example.com' });
      await json('POST', '/projects', { slug: 'apps' });
      const issue = { email: 'carol@example.com', project: 'apps', description: 'ci' };
      assert.equal(refusal(await call('POST', '/tokens', issue)), '409 membership_not_approved');
      await json('POST', '/projects/apps/members', { email: 'carol@example.com' });
      await json('POST', '/projects/apps/members/carol@example.com/approve');
      const unfunded = await call('POST', '/tokens', issue);
      assert.equal(refusal(unfunded), '409 no_allocation');
      // The reason without gatewayctl's command: this caller fixes it over HTTP.
      assert.equal(
        (unfunded.json() as ErrorBody).error.message,
        "Project 'apps' has no gateway allocation; set one first.",
      );
      await json('PUT', '/projects/apps/allocations/developer', { usd: 5 });
      const ttl = await call('POST', '/tokens', { ...issue, ttl: '400d' });
      assert.equal(refusal(ttl), '400 invalid_ttl');
      assert.equal((ttl.json() as ErrorBody).error.param, 'ttl');
      assert.equal(
        refusal(await call('POST', '/tokens', { ...issue, project: 'nope' })),
        '404 unknown_project',
      );

      const issued = await call('POST', '/tokens', { ...issue, ttl: '1h' });
      assert.equal(issued.statusCode, 201);
      const token = issued.json() as { id: string; token: string; state: string; description: string };
      assert.equal(issued.headers.location, `/admin/v1/tokens/${token.id}`);
      assert.deepEqual([token.state, token.description], ['active', 'ci']);
      assert.equal(
        (await t.app.inject({ url: '/v1/account', headers: bearer(token.token) })).statusCode,
        200,
      );

      const byUser = await json<List<{ id: string }>>('GET', '/tokens?email=carol@example.com');
      assert.deepEqual(
        byUser.data.map((x) => x.id),
        [token.id],
      );
      const byProject = await json<List<{ id: string; token?: string }>>('GET', '/tokens?project=apps');
      assert.deepEqual(
        byProject.data.map((x) => x.id),
        [token.id],
      );
      assert.equal(byProject.data[0]?.token, undefined, 'a listing never carries the token');
      assert.equal(refusal(await call('GET', '/tokens?email=nobody@example.com')), '404 unknown_user');
      assert.equal(refusal(await call('GET', '/tokens?project=nope')), '404 unknown_project');
      assert.equal((await json<{ id: string }>('GET', `/tokens/${token.id}`)).id, token.id);

      const revoked = await call('DELETE', `/tokens/${token.id}`);
      assert.equal(revoked.statusCode, 204);
      assert.equal(revoked.body, '');
      assert.equal((await call('DELETE', `/tokens/${token.id}`)).statusCode, 204, 'idempotent');
      assert.equal((await json<{ state: string }>('GET', `/tokens/${token.id}`)).state, 'revoked');
      // Announced to this instance at once: no wait for the token-state cache.
      const refused = await t.app.inject({ url: '/v1/account', headers: bearer(token.token) });
      assert.equal(refusal(refused), '401 gateway_invalid_token');
      assert.equal(refusal(await call('DELETE', '/tokens/no-such-token')), '404 unknown_token');
      assert.equal(refusal(await call('GET', '/tokens/no-such-token')), '404 unknown_token');
    });

    it('a revoked membership and a narrowed IP allowlist stop a token at once on this instance', async () => {
      await json('POST', '/users', { email: 'dave@example.com' });
      await json('POST', '/projects', { slug: 'ops' });
      await json('POST', '/projects/ops/members', { email: 'dave@example.com' });
      await json('POST', '/projects/ops/members/dave@example.com/approve');
      await json('PUT', '/projects/ops/allocations/developer', { usd: 1 });
      const { token } = await json<{ token: string }>('POST', '/tokens', {
        email: 'dave@example.com',
        project: 'ops',
      });
      const account = () =>
        t.app.inject({ url: '/v1/account', headers: bearer(token), remoteAddress: '192.0.2.1' });
      assert.equal((await account()).statusCode, 200);
      await json('PUT', '/projects/ops/ip-allow', { ip_allow: ['10.0.0.0/8'] });
      assert.equal(refusal(await account()), '403 gateway_ip_not_allowed');
      await json('PUT', '/projects/ops/ip-allow', { ip_allow: [] });
      assert.equal((await account()).statusCode, 200);
      await json('POST', '/projects/ops/members/dave@example.com/revoke');
      assert.equal(refusal(await account()), '403 gateway_membership_inactive');
    });
  });
