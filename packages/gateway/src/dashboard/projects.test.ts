/**
 * Projects and memberships in the dashboard: requests, decisions by project admins,
 * allocations and projects by gateway admins, and the landing page at `/`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { testEngines } from '@app/db/testing.ts';
import { addProject, approveMembership, requestMembership, setAllocation } from '../access/admin.ts';
import { type DashboardTestApp, injectBrowser, sessionFor, startDashboardApp } from './testing.ts';

for (const { engine, skip } of testEngines())
  describe(`dashboard projects and memberships (${engine})`, { skip }, () => {
    let gateway: DashboardTestApp;

    before(async () => {
      gateway = await startDashboardApp({ engine });
      const db = gateway.database.db;
      await addProject(db, { slug: 'team' });
      await setAllocation(db, { slug: 'team', provider: 'developer', usd: 3 });
      await sessionFor(gateway.database, 'lead@example.com');
      await requestMembership(db, { slug: 'team', email: 'lead@example.com' });
      await approveMembership(db, { slug: 'team', email: 'lead@example.com', admin: true });
      await sessionFor(gateway.database, 'root@example.com', { admin: true });
    });
    after(() => gateway.close());

    async function signedIn(email: string) {
      return injectBrowser(gateway.app, (await sessionFor(gateway.database, email)).cookie);
    }

    async function membership(email: string, slug: string) {
      return gateway.database.db
        .selectFrom('memberships')
        .innerJoin('users', 'users.id', 'memberships.user_id')
        .innerJoin('projects', 'projects.id', 'memberships.project_id')
        .select(['memberships.status'])
        .where('users.email', '=', email)
        .where('projects.slug', '=', slug)
        .executeTakeFirst();
    }

    describe('memberships', () => {
      test('a user requests membership, a project admin approves it, then revokes it', async () => {
        const dev = await signedIn('dev@example.com');
        const requested = await dev.post('/dashboard/memberships', { slug: 'team' });
        assert.equal(requested.statusCode, 200);
        assert.match(
          requested.body,
          /role="status" class="notice">Request sent for project <strong>team<\/strong>/,
        );
        assert.equal((await dev.get('/dashboard/projects/team')).statusCode, 404, 'not before approval');
        assert.equal((await membership('dev@example.com', 'team'))?.status, 'pending');

        const notAdmin = await dev.post(
          '/dashboard/projects/team/members/approve',
          { email: 'dev@example.com' },
          '/dashboard/projects/team',
        );
        assert.equal(notAdmin.statusCode, 404, 'only project admins decide');
        assert.equal((await membership('dev@example.com', 'team'))?.status, 'pending');

        const lead = await signedIn('lead@example.com');
        const page = await lead.get('/dashboard/projects/team');
        assert.match(
          page.body,
          /<button type="submit" aria-label="Approve dev@example.com">Approve<\/button>/,
        );
        // An unknown email gets words an end user can act on, never an operator's command.
        const unknown = await lead.post(
          '/dashboard/projects/team/members/approve',
          { email: 'ghost@example.com' },
          '/dashboard/projects/team',
        );
        assert.equal(unknown.statusCode, 404);
        assert.match(unknown.body, /No user with email ghost@example\.com\./);
        assert.doesNotMatch(unknown.body, /gatewayctl|Create it with/);
        const approved = await lead.post(
          '/dashboard/projects/team/members/approve',
          { email: 'dev@example.com' },
          '/dashboard/projects/team',
        );
        assert.equal(approved.statusCode, 303);
        assert.equal((await membership('dev@example.com', 'team'))?.status, 'approved');
        assert.match((await dev.get('/dashboard')).body, /<a href="\/dashboard\/projects\/team">team<\/a>/);
        assert.match(
          (await dev.get('/dashboard/projects/team')).body,
          /Your status: <strong>member<\/strong>/,
        );
        await lead.post(
          '/dashboard/projects/team/members/revoke',
          { email: 'dev@example.com' },
          '/dashboard/projects/team',
        );
        assert.equal((await membership('dev@example.com', 'team'))?.status, 'revoked');
        assert.equal((await dev.get('/dashboard/projects/team')).statusCode, 404, 'not after revocation');
      });
    });

    describe('gateway admins', () => {
      test('create projects and set allocations per provider bucket; others may not', async () => {
        const root = await signedIn('root@example.com');
        const home = await root.get('/dashboard');
        assert.match(home.body, /<label for="new-project">Project name<\/label>/);
        const created = await root.post('/dashboard/projects', { slug: 'research' });
        assert.equal(created.headers.location, '/dashboard/projects/research');
        const set = await root.post(
          '/dashboard/projects/research/allocations',
          { provider: 'cloud_a', usd: '12.5' },
          '/dashboard/projects/research',
        );
        assert.equal(set.statusCode, 303);
        const page = await root.get('/dashboard/projects/research');
        assert.match(
          page.body,
          /<th scope="row">cloud_a<\/th><td>\$12.50<\/td><td>\$0.00<\/td><td>\$0.00<\/td><td>\$12.50<\/td><td>0<\/td>/,
        );
        const bad = await root.post(
          '/dashboard/projects/research/allocations',
          { provider: 'cloud_z', usd: '1' },
          '/dashboard/projects/research',
        );
        assert.equal(bad.statusCode, 400);
        assert.match(bad.body, /Unknown provider/);

        const lead = await signedIn('lead@example.com');
        assert.equal((await lead.post('/dashboard/projects', { slug: 'mine' })).statusCode, 403);
        const raise = await lead.post(
          '/dashboard/projects/team/allocations',
          { provider: 'developer', usd: '1000' },
          '/dashboard/projects/team',
        );
        assert.equal(raise.statusCode, 403, 'project admins do not set allocations');
      });
    });

    describe('GET /', () => {
      test('a browser gets a landing page linking the docs, the dashboard and the OpenAPI document', async () => {
        const response = await gateway.app.inject({
          method: 'GET',
          url: '/',
          headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' },
        });
        assert.equal(response.statusCode, 200);
        for (const href of ['/docs', '/dashboard', '/openapi.json'])
          assert.ok(response.body.includes(`href="${href}"`), href);
        assert.match(String(response.headers['content-security-policy']), /default-src 'none'/);
      });

      test('API clients keep the JSON 404', async () => {
        for (const accept of ['application/json', '*/*', undefined]) {
          const response = await gateway.app.inject({
            method: 'GET',
            url: '/',
            headers: accept ? { accept } : {},
          });
          assert.equal(response.statusCode, 404);
          assert.equal(response.json().error.code, 'not_found');
        }
      });

      test('dashboard pages carry a Content-Security-Policy without inline scripts', async () => {
        const response = await gateway.app.inject({ method: 'GET', url: '/dashboard' });
        const csp = String(response.headers['content-security-policy']);
        assert.match(csp, /script-src 'self'/);
        assert.ok(!csp.includes('unsafe-inline'));
        assert.equal(response.headers['x-frame-options'], 'DENY');
      });
    });
  });
