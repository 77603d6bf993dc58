/**
 * Audited like the dashboard: every change made through /admin/v1 is in the audit trail, in the
 * same transaction, with the admin key as actor; reads leave no trace. GET /admin/v1/audit reads
 * the trail (every project's, or one), page by page.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { testEngines } from '@app/db/testing.ts';
import { type AdminTestApp, refusal, startAdminApp } from './testing.ts';

interface Event {
  readonly id: number;
  readonly project: string | null;
  readonly actor: string;
  readonly actor_kind: string;
  readonly actor_admin_key_id: number | null;
  readonly action: string;
  readonly subject: string;
  readonly detail: string;
}
interface Page {
  readonly data: readonly Event[];
  readonly older_before: number | null;
}

for (const { engine, skip } of testEngines())
  describe(`admin API audit trail (${engine})`, { skip }, () => {
    let t: AdminTestApp;
    let key: string;
    let keyId: number;
    const ok = async (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown) => {
      const response = await t.call(key, method, path, body);
      assert.ok(response.statusCode < 300, `${method} ${path}: ${response.body}`);
      return response;
    };
    const trail = async (query = '') => (await ok('GET', `/audit${query}`)).json() as Page;

    before(async () => {
      t = await startAdminApp(engine);
      ({ key, id: keyId } = await t.newKey(['read', 'write'], 'portal'));
    });
    after(() => t.close());

    it('records every write with the admin key as actor, and no read', async () => {
      await ok('POST', '/users', { email: 'erin@example.com' });
      await ok('POST', '/projects', { slug: 'trail' });
      await ok('PUT', '/projects/trail/ip-allow', { ip_allow: ['10.0.0.0/8'] });
      await ok('POST', '/projects/trail/members', { email: 'erin@example.com' });
      await ok('POST', '/projects/trail/members/erin@example.com/approve');
      await ok('PUT', '/projects/trail/allocations/developer', { usd: 2 });
      await ok('PUT', '/projects/trail/limits/token', { requests_per_minute: 60 });
      const { id } = (
        await ok('POST', '/tokens', { email: 'erin@example.com', project: 'trail' })
      ).json() as {
        id: string;
      };
      await ok('DELETE', `/tokens/${id}`);
      await ok('POST', '/projects/trail/members/erin@example.com/revoke');
      for (const path of [
        '/users',
        '/projects/trail',
        '/projects/trail/members',
        '/tokens',
        '/projects/trail/usage',
      ])
        await ok('GET', path);

      const events = (await trail()).data;
      assert.deepEqual(
        events.map((e) => [e.project, e.action, e.subject]),
        [
          ['trail', 'membership.revoke', 'erin@example.com'],
          ['trail', 'token.revoke', 'erin@example.com'],
          ['trail', 'token.issue', 'erin@example.com'],
          ['trail', 'limits.set', 'token'],
          ['trail', 'allocation.set', 'developer'],
          ['trail', 'membership.approve', 'erin@example.com'],
          ['trail', 'membership.request', 'erin@example.com'],
          ['trail', 'project.ip_allow', 'trail'],
          ['trail', 'project.create', 'trail'],
          [null, 'user.create', 'erin@example.com'],
          [null, 'admin_key.create', `admin key ${keyId}`],
        ],
      );
      const created = events.at(-1);
      assert.deepEqual(
        [created?.actor, created?.actor_kind],
        ['gatewayctl', 'operator'],
        'the key was created so',
      );
      const changes = events.slice(0, -1);
      for (const event of changes) {
        assert.equal(event.actor, `admin key ${keyId} (portal)`);
        assert.equal(event.actor_kind, 'admin_key');
        assert.equal(event.actor_admin_key_id, keyId);
      }
      assert.equal(events[3]?.detail, 'none -> 60 requests/min');
      const rows = await t.database.db
        .selectFrom('audit_events')
        .select('actor_admin_key_id')
        .where('actor_admin_key_id', '=', keyId)
        .execute();
      assert.equal(rows.length, changes.length, 'the column, not only the label');
    });

    it('filters by project and pages with before', async () => {
      await ok('POST', '/projects', { slug: 'other' });
      const other = await trail('?project=other');
      assert.deepEqual(
        other.data.map((e) => e.action),
        ['project.create'],
      );
      assert.equal(other.older_before, null);
      const first = await trail('?project=trail&limit=4');
      assert.equal(first.data.length, 4);
      assert.ok(first.older_before);
      const second = await trail(`?project=trail&limit=100&before=${first.older_before}`);
      assert.deepEqual(
        [...first.data, ...second.data].map((e) => e.action),
        (await trail('?project=trail')).data.map((e) => e.action),
      );
      assert.equal(refusal(await t.call(key, 'GET', '/audit?project=nope')), '404 unknown_project');
      assert.equal(refusal(await t.call(key, 'GET', '/audit?limit=0')), '400 invalid_request');
    });

    it('names the other actors: gatewayctl is the operator', async () => {
      const { addProject } = await import('../access/admin.ts');
      await addProject(t.database.db, { slug: 'by-cli' });
      const [event] = (await trail('?project=by-cli')).data;
      assert.deepEqual(
        [event?.actor, event?.actor_kind, event?.actor_admin_key_id],
        ['gatewayctl', 'operator', null],
      );
    });
  });
