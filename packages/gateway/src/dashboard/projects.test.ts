/**
 * Projects and memberships in the dashboard: requests, decisions by project admins,
 * allocations and projects by gateway admins, and the landing page at `/`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { testEngines } from '@app/db/testing.ts';
import { addProject, approveMembership, requestMembership, setAllocation } from '../access/admin.ts';
import { MAX_ALLOCATION_USD } from '../money.ts';
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
        // Revoke asks first; the question changes nothing, the confirmed answer revokes.
        const asked = await lead.post(
          '/dashboard/projects/team/members/revoke',
          { email: 'dev@example.com' },
          '/dashboard/projects/team',
        );
        assert.equal(asked.statusCode, 200);
        assert.match(asked.body, /<h1>Revoke the membership of dev@example.com\?<\/h1>/);
        assert.match(
          asked.body,
          /<form method="post" action="\/dashboard\/projects\/team\/members\/revoke" class="buttons"><input type="hidden" name="_csrf" value="[^"]+" \/><input type="hidden" name="email" value="dev@example.com" \/><input type="hidden" name="confirm" value="yes" \/><button type="submit">Revoke membership<\/button><a class="button secondary" href="\/dashboard\/projects\/team">Cancel<\/a><\/form>/,
        );
        assert.equal((await membership('dev@example.com', 'team'))?.status, 'approved');
        assert.equal((await dev.get('/dashboard/projects/team')).statusCode, 200);
        const csrf = /name="_csrf" value="([^"]+)"/.exec(asked.body)?.[1] ?? '';
        const revoked = await lead.postRaw('/dashboard/projects/team/members/revoke', {
          _csrf: csrf,
          email: 'dev@example.com',
          confirm: 'yes',
        });
        assert.equal(revoked.statusCode, 303);
        assert.equal((await membership('dev@example.com', 'team'))?.status, 'revoked');
        assert.equal((await dev.get('/dashboard/projects/team')).statusCode, 404, 'not after revocation');
      });

      test('a project admin is "project admin": own status, the members list, the home page', async () => {
        const lead = await signedIn('lead@example.com');
        const page = await lead.get('/dashboard/projects/team');
        assert.match(page.body, /Your status: <strong>project admin<\/strong>/);
        assert.match(
          page.body,
          /<th scope="row">lead@example.com<\/th><td data-label="Status">project admin<\/td>/,
        );
        assert.match(
          (await lead.get('/dashboard')).body,
          /<a href="\/dashboard\/projects\/team">team<\/a><span class="status">project admin<\/span>/,
        );
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

    describe('allocations and providers on the project page', () => {
      test('a refused amount shows why next to its field, on the project page; nothing changes', async () => {
        const root = await signedIn('root@example.com');
        const limit = `between 0 and ${MAX_ALLOCATION_USD}.`;
        for (const usd of ['abc', '-5', String(MAX_ALLOCATION_USD * 2), '', '1,5']) {
          const refused = await root.post(
            '/dashboard/projects/team/allocations',
            { provider: 'cloud_b', usd },
            '/dashboard/projects/team',
          );
          assert.equal(refused.statusCode, 400, usd);
          assert.match(refused.body, /<h1>Project team<\/h1>/, 'the project page, not a dead end');
          assert.ok(
            refused.body.includes(
              `<label for="usd">Allocation in US dollars</label><br /><span id="usd-problem" role="alert" class="error">&#39;${usd}&#39; is not an amount in US dollars ${limit}</span>`,
            ),
            `the reason next to the amount (${usd})`,
          );
          assert.match(refused.body, /aria-invalid="true" aria-describedby="usd-problem"/);
          assert.match(
            refused.body,
            /<option value="cloud_b" selected>cloud_b<\/option>/,
            'the bucket is kept',
          );
          assert.ok(refused.body.includes(`value="${usd}"`), 'what was typed is kept');
          assert.doesNotMatch(refused.body, /NaN/);
        }
        const rows = await gateway.database.db
          .selectFrom('allocations')
          .innerJoin('projects', 'projects.id', 'allocations.project_id')
          .select('provider')
          .where('projects.slug', '=', 'team')
          .execute();
        assert.deepEqual(
          rows.map((row) => row.provider),
          ['developer'],
          'no allocation was set',
        );
      });

      test('providers are listed in one order: developer, cloud_a, cloud_b, cloud_c', async () => {
        const db = gateway.database.db;
        await addProject(db, { slug: 'spread' });
        for (const provider of ['cloud_c', 'cloud_a', 'developer', 'cloud_b'])
          await setAllocation(db, { slug: 'spread', provider, usd: 1 });
        await requestMembership(db, { slug: 'spread', email: 'lead@example.com' });
        await approveMembership(db, { slug: 'spread', email: 'lead@example.com' });
        const order = ['developer', 'cloud_a', 'cloud_b', 'cloud_c'];
        const bucketRows = (body: string) =>
          [...body.matchAll(/<th scope="row">(developer|cloud_\w)<\/th><td>/g)].map((match) => match[1]);
        for (const email of ['lead@example.com', 'root@example.com']) {
          const page = await (await signedIn(email)).get('/dashboard/projects/spread');
          assert.deepEqual(bucketRows(page.body), order, `usage per bucket, seen by ${email}`);
        }
        const admin = await (await signedIn('root@example.com')).get('/dashboard/projects/spread');
        const options = [...admin.body.matchAll(/<option value="(\w+)"\s*>/g)].map((match) => match[1]);
        assert.deepEqual(options, order, 'the allocation form');
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

      test('the icon: /favicon.ico, named by the landing page and the dashboard', async () => {
        const icon = await gateway.app.inject({ method: 'GET', url: '/favicon.ico' });
        assert.equal(icon.statusCode, 200);
        assert.equal(icon.headers['content-type'], 'image/svg+xml');
        assert.match(icon.body, /^<svg xmlns="http:\/\/www.w3.org\/2000\/svg"/);
        const link = '<link rel="icon" href="/favicon.ico" type="image/svg+xml" />';
        const landing = await gateway.app.inject({
          method: 'GET',
          url: '/',
          headers: { accept: 'text/html' },
        });
        assert.ok(landing.body.includes(link), 'the landing page');
        const signIn = await gateway.app.inject({ method: 'GET', url: '/dashboard' });
        assert.ok(signIn.body.includes(link), 'the dashboard');
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
