/**
 * The audit trail: changes made in the dashboard are recorded with the signed-in user as
 * actor, changes made with gatewayctl with `gatewayctl`; project admins read it newest first,
 * page by page; nobody else sees it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { testEngines } from '@app/db/testing.ts';
import {
  addProject,
  approveMembership,
  requestMembership,
  setAllocation,
  userActor,
} from '../access/admin.ts';
import { createAdminKey } from '../access/admin-keys.ts';
import { main } from '../cli/gatewayctl.ts';
import { AUDIT_PAGE_SIZE } from './routes/admin.ts';
import { type DashboardTestApp, injectBrowser, sessionFor, startDashboardApp } from './testing.ts';

for (const { engine, skip } of testEngines())
  describe(`dashboard audit trail (${engine})`, { skip }, () => {
    let gateway: DashboardTestApp;

    before(async () => {
      gateway = await startDashboardApp({ engine });
      await sessionFor(gateway.database, 'root@example.com', { admin: true });
      await sessionFor(gateway.database, 'lead@example.com');
      await sessionFor(gateway.database, 'dev@example.com');
    });
    after(() => gateway.close());

    async function signedIn(email: string) {
      return injectBrowser(gateway.app, (await sessionFor(gateway.database, email)).cookie);
    }

    /** The rows of the audit page as [who, what, concerning, details]. */
    function rows(body: string): string[][] {
      const table = /<tbody>([\s\S]*?)<\/tbody>/.exec(body)?.[1] ?? '';
      return [...table.matchAll(/<tr>([\s\S]*?)<\/tr>/g)].map((row) =>
        [...(row[1] ?? '').matchAll(/<td>([\s\S]*?)<\/td>/g)]
          .slice(1)
          .map((cell) => (cell[1] ?? '').replace(/<[^>]+>/g, '')),
      );
    }

    async function gatewayctl(...args: string[]): Promise<string> {
      // The test's database, as an operator points gatewayctl at a service's: URL and schema.
      const { url, schema } = gateway.shared;
      const env = {
        GATEWAY_DATABASE_URL: url,
        ...(schema ? { GATEWAY_DATABASE_SCHEMA: schema } : {}),
        GATEWAY_DATA_DIR: gateway.config.dataDir,
      };
      const out: string[] = [];
      const err: string[] = [];
      const code = await main(args, env, { out: (line) => out.push(line), err: (line) => err.push(line) });
      assert.equal(code, 0, err.join('\n'));
      return out.join('\n');
    }

    describe('the audit trail', () => {
      test('records who did what in the dashboard and with gatewayctl, newest first', async () => {
        const root = await signedIn('root@example.com');
        await root.post('/dashboard/projects', { slug: 'audited' });
        const lead = await signedIn('lead@example.com');
        await lead.post('/dashboard/memberships', { slug: 'audited' });
        await root.post(
          '/dashboard/projects/audited/members/approve',
          { email: 'lead@example.com' },
          '/dashboard/projects/audited',
        );
        await gatewayctl('members', 'approve', 'audited', 'lead@example.com', '--admin');
        await root.post(
          '/dashboard/projects/audited/allocations',
          { provider: 'developer', usd: '5' },
          '/dashboard/projects/audited',
        );
        await gatewayctl('allocations', 'set', 'audited', 'developer', '7.5');
        await lead.post(
          '/dashboard/projects/audited/tokens',
          { description: 'laptop <b>' },
          '/dashboard/projects/audited/tokens/new',
        );
        const { jti } = await gateway.database.db
          .selectFrom('access_tokens')
          .select('jti')
          .where('description', '=', 'laptop <b>')
          .executeTakeFirstOrThrow();
        await lead.post(
          `/dashboard/projects/audited/tokens/${jti}/revoke`,
          { confirm: 'yes' },
          '/dashboard/projects/audited/tokens',
        );
        const cliToken = await gatewayctl(
          'tokens',
          'issue',
          '--email',
          'lead@example.com',
          '--project',
          'audited',
        );
        assert.match(cliToken, /^ey/);
        const cliJti = (
          await gateway.database.db
            .selectFrom('access_tokens')
            .select('jti')
            .where('jti', '<>', jti)
            .executeTakeFirstOrThrow()
        ).jti;
        await gatewayctl('tokens', 'revoke', cliJti);
        await lead.post(
          '/dashboard/projects/audited/members/revoke',
          { email: 'lead@example.com', confirm: 'yes' },
          '/dashboard/projects/audited',
        );

        const page = await root.get('/dashboard/projects/audited/audit');
        assert.equal(page.statusCode, 200);
        const trail = rows(page.body);
        assert.deepEqual(
          trail.map((row) => row.slice(0, 3)),
          [
            ['lead@example.com', 'membership revoked', 'lead@example.com'],
            ['gatewayctl (operator)', 'token revoked', 'lead@example.com'],
            ['gatewayctl (operator)', 'token issued', 'lead@example.com'],
            ['lead@example.com', 'token revoked', 'lead@example.com'],
            ['lead@example.com', 'token issued', 'lead@example.com'],
            ['gatewayctl (operator)', 'allocation set', 'developer'],
            ['root@example.com', 'allocation set', 'developer'],
            ['gatewayctl (operator)', 'membership approved', 'lead@example.com'],
            ['root@example.com', 'membership approved', 'lead@example.com'],
            ['lead@example.com', 'membership requested', 'lead@example.com'],
            ['root@example.com', 'project created', 'audited'],
          ],
        );
        const details = trail.map((row) => row[3] ?? '');
        const quoted = (text: string) => `&#39;${text}&#39;`;
        assert.equal(details[1], `token ${quoted('no description')} (id ${cliJti})`);
        assert.match(
          details[2] ?? '',
          new RegExp(`^token ${quoted('no description')} \\(id ${cliJti}\\), expires 20`),
        );
        assert.equal(details[3], `token ${quoted('laptop &lt;b&gt;')} (id ${jti})`, 'escaped');
        assert.match(details[4] ?? '', /, expires 20\d\d-/);
        assert.deepEqual(details.slice(5), [
          '$5.00 -&gt; $7.50',
          'none -&gt; $5.00',
          'as project admin',
          '',
          '',
          'IP allowlist: any address',
        ]);
      });

      test('shows every time in one format, as a <time> element: "2026-11-28 06:30 UTC"', async () => {
        const db = gateway.database.db;
        await addProject(db, { slug: 'timed' });
        await setAllocation(db, { slug: 'timed', provider: 'developer', usd: 1 });
        await requestMembership(db, { slug: 'timed', email: 'dev@example.com' });
        await approveMembership(db, { slug: 'timed', email: 'dev@example.com' });
        const dev = await signedIn('dev@example.com');
        await dev.post(
          '/dashboard/projects/timed/tokens',
          { description: 'dated' },
          '/dashboard/projects/timed/tokens/new',
        );
        const page = await (await signedIn('root@example.com')).get('/dashboard/projects/timed/audit');
        const table = /<tbody>([\s\S]*?)<\/tbody>/.exec(page.body)?.[1] ?? '';
        const times = [...table.matchAll(/<time datetime="([^"]+)">([^<]+)<\/time>/g)];
        // When, for each of the 5 events, and the token's expiry in the details of its issue.
        assert.equal(times.length, 6);
        for (const [, datetime = '', shown] of times) {
          assert.ok(!Number.isNaN(Date.parse(datetime)), datetime);
          assert.equal(shown, `${datetime.slice(0, 10)} ${datetime.slice(11, 16)} UTC`);
        }
        const text = table.replace(/<[^>]+>/g, '');
        assert.match(text, /, expires \d{4}-\d\d-\d\d \d\d:\d\d UTC/);
        assert.doesNotMatch(text, /\d{4}-\d\d-\d\dT|\d\d:\d\d:\d\d/, 'no time in another format');
      });

      test('is paginated by 25, newest first, and only project admins see it', async () => {
        const db = gateway.database.db;
        await addProject(db, { slug: 'busy' });
        await requestMembership(db, { slug: 'busy', email: 'lead@example.com' });
        await approveMembership(db, { slug: 'busy', email: 'lead@example.com', admin: true });
        await requestMembership(db, { slug: 'busy', email: 'dev@example.com' });
        await approveMembership(db, { slug: 'busy', email: 'dev@example.com' });
        const actor = userActor({ id: 1, email: 'root@example.com' });
        for (let usd = 1; usd <= 30; usd++)
          await setAllocation(db, { slug: 'busy', provider: 'cloud_b', usd, actor });

        const lead = await signedIn('lead@example.com');
        const first = await lead.get('/dashboard/projects/busy/audit');
        const firstRows = rows(first.body);
        assert.equal(firstRows.length, AUDIT_PAGE_SIZE);
        assert.equal(firstRows[0]?.[3], '$29.00 -&gt; $30.00', 'the newest first');
        const older =
          /<a rel="next" href="(\/dashboard\/projects\/busy\/audit\?before=\d+)">Older events<\/a>/.exec(
            first.body,
          )?.[1];
        assert.ok(older, 'a link to the older events');
        const second = await lead.get(older);
        const secondRows = rows(second.body);
        // 5 projects-created/membership events + 30 allocations = 35: 25 + 10.
        assert.equal(secondRows.length, 35 - AUDIT_PAGE_SIZE);
        assert.equal(secondRows[0]?.[3], '$4.00 -&gt; $5.00', 'continues where the first page ended');
        assert.deepEqual(secondRows.at(-1)?.slice(0, 2), ['gatewayctl (operator)', 'project created']);
        assert.doesNotMatch(second.body, /Older events/);
        assert.match(second.body, /<a href="\/dashboard\/projects\/busy\/audit">Newest events<\/a>/);

        const dev = await signedIn('dev@example.com');
        assert.equal((await dev.get('/dashboard/projects/busy/audit')).statusCode, 404, 'members do not');
        assert.doesNotMatch((await dev.get('/dashboard/projects/busy')).body, /Audit trail/);
        assert.match(
          (await lead.get('/dashboard/projects/busy')).body,
          /href="\/dashboard\/projects\/busy\/audit"/,
        );
        assert.equal(
          (await lead.get('/dashboard/projects/audited/audit')).statusCode,
          404,
          'revoked admins do not',
        );
        assert.equal((await lead.get('/dashboard/projects/busy/audit?before=abc')).statusCode, 400);
      });

      test('shows changes made through the admin API with the admin key as actor', async () => {
        const policy = { defaultTtl: '1d', maxTtl: '1d' };
        const { key, info } = await createAdminKey(gateway.database.db, policy, {
          description: 'terraform',
          scopes: ['write'],
        });
        const api = (method: 'POST' | 'PUT', url: string, payload: object) =>
          gateway.app.inject({ method, url, payload, headers: { authorization: `Bearer ${key}` } });
        assert.equal((await api('POST', '/admin/v1/projects', { slug: 'automated' })).statusCode, 201);
        const allocation = { usd: 3 };
        assert.equal(
          (await api('PUT', '/admin/v1/projects/automated/allocations/cloud_a', allocation)).statusCode,
          200,
        );
        const root = await signedIn('root@example.com');
        const trail = rows((await root.get('/dashboard/projects/automated/audit')).body);
        const actor = `admin key ${info.id} (terraform) (admin API)`;
        assert.deepEqual(
          trail.map((row) => row.slice(0, 3)),
          [
            [actor, 'allocation set', 'cloud_a'],
            [actor, 'project created', 'automated'],
          ],
        );
      });
    });
  });
