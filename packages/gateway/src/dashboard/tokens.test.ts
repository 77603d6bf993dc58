/**
 * The dashboard's token flow and its refusals over HTTP (app.inject), with sessions created
 * directly: generate, shown once, used, revoked; CSRF, other users' projects and tokens,
 * non-members, projects without allocation, expired sessions, the rate limit.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { testEngines } from '@app/db/testing.ts';
import { addProject, approveMembership, requestMembership, setAllocation } from '../access/admin.ts';
import { type DashboardTestApp, injectBrowser, sessionFor, startDashboardApp } from './testing.ts';

for (const { engine, skip } of testEngines())
  describe(`dashboard tokens and sessions (${engine})`, { skip }, () => {
    let gateway: DashboardTestApp;

    before(async () => {
      gateway = await startDashboardApp({ engine, dashboard: { tokensPerMinute: 5 } });
      const db = gateway.database.db;
      for (const slug of ['alpha', 'dry', 'beta']) await addProject(db, { slug });
      await setAllocation(db, { slug: 'alpha', provider: 'developer', usd: 5 });
      await setAllocation(db, { slug: 'beta', provider: 'developer', usd: 5 });
      for (const [email, slug] of [
        ['owner@example.com', 'alpha'],
        ['owner@example.com', 'dry'],
        ['other@example.com', 'beta'],
        ['waiting@example.com', 'alpha'],
        // Each test that generates has its own user: the rate limit counts per user.
        ['careful@example.com', 'alpha'],
        ['chooser@example.com', 'alpha'],
      ] as const) {
        await sessionFor(gateway.database, email);
        await requestMembership(db, { slug, email });
        if (email !== 'waiting@example.com') await approveMembership(db, { slug, email });
      }
    });
    after(() => gateway.close());

    async function signedIn(email: string) {
      return injectBrowser(gateway.app, (await sessionFor(gateway.database, email)).cookie);
    }

    /** How many tokens carry this description. */
    async function issuedWith(description: string): Promise<number> {
      const rows = await gateway.database.db
        .selectFrom('access_tokens')
        .select('jti')
        .where('description', '=', description)
        .execute();
      return rows.length;
    }

    function newToken(body: string): string | undefined {
      return /id="new-token" class="token" readonly value="([^"]+)"/.exec(body)?.[1];
    }

    async function models(token: string) {
      return gateway.app.inject({
        method: 'GET',
        url: '/v1/models',
        headers: { authorization: `Bearer ${token}` },
      });
    }

    describe('personal access tokens in the dashboard', () => {
      test('generate: the token is shown once with its expiry, works, and is listed; revoke stops it', async () => {
        const owner = await signedIn('owner@example.com');
        const list = await owner.get('/dashboard/projects/alpha/tokens');
        assert.match(
          list.body,
          /<a class="button" href="\/dashboard\/projects\/alpha\/tokens\/new">Generate<\/a>/,
        );
        const form = await owner.get('/dashboard/projects/alpha/tokens/new');
        assert.match(form.body, /<label for="description">Token description<\/label>/);
        const created = await owner.post(
          '/dashboard/projects/alpha/tokens',
          { description: 'laptop <script>' },
          '/dashboard/projects/alpha/tokens/new',
        );
        assert.equal(created.statusCode, 303);
        assert.equal(created.headers.location, '/dashboard/projects/alpha/tokens');
        assert.ok(!String(created.headers.location).includes('ey'), 'the token is not in the URL');

        const shown = await owner.get('/dashboard/projects/alpha/tokens');
        const token = newToken(shown.body);
        assert.ok(token, 'the complete token is on the page');
        assert.equal(shown.headers['cache-control'], 'no-store');
        assert.match(shown.body, /only time it is shown/);
        assert.match(shown.body, /<script src="\/dashboard\/assets\/copy.js" defer><\/script>/);
        assert.match(shown.body, /laptop &lt;script&gt;/, 'the description is escaped');
        assert.equal((await models(token)).statusCode, 200);

        const reloaded = await owner.get('/dashboard/projects/alpha/tokens');
        assert.equal(newToken(reloaded.body), undefined, 'a reload does not show it again');
        assert.ok(!reloaded.body.includes(token));
        assert.match(reloaded.body, /<th scope="row">laptop &lt;script&gt;<\/th>/);

        const jti = /\/tokens\/([0-9a-f-]{36})\/revoke/.exec(reloaded.body)?.[1];
        assert.ok(jti);
        const revoked = await owner.post(
          `/dashboard/projects/alpha/tokens/${jti}/revoke`,
          { confirm: 'yes' },
          '/dashboard/projects/alpha/tokens',
        );
        assert.equal(revoked.statusCode, 303);
        const refused = await models(token);
        assert.equal(refused.statusCode, 401, 'revoked at once on this instance');
      });

      test('Revoke asks first: the question changes nothing, the confirmed answer revokes', async () => {
        const owner = await signedIn('careful@example.com');
        await owner.post(
          '/dashboard/projects/alpha/tokens',
          { description: 'to be revoked' },
          '/dashboard/projects/alpha/tokens/new',
        );
        const token = newToken((await owner.get('/dashboard/projects/alpha/tokens')).body);
        assert.ok(token);
        const { jti } = await gateway.database.db
          .selectFrom('access_tokens')
          .select('jti')
          .where('description', '=', 'to be revoked')
          .executeTakeFirstOrThrow();
        const revoke = `/dashboard/projects/alpha/tokens/${jti}/revoke`;

        const asked = await owner.post(revoke, {}, '/dashboard/projects/alpha/tokens');
        assert.equal(asked.statusCode, 200);
        assert.match(asked.body, /<h1>Revoke token to be revoked\?<\/h1>/);
        const form = new RegExp(
          `<form method="post" action="${revoke}" class="buttons"><input type="hidden" name="_csrf" value="[^"]+" /><input type="hidden" name="confirm" value="yes" /><button type="submit">Revoke token</button><a class="button secondary" href="/dashboard/projects/alpha/tokens">Cancel</a></form>`,
        );
        assert.match(asked.body, form);
        assert.equal((await models(token)).statusCode, 200, 'asking revoked nothing');
        const row = () =>
          gateway.database.db
            .selectFrom('access_tokens')
            .select('revoked_at')
            .where('jti', '=', jti)
            .executeTakeFirstOrThrow();
        assert.equal((await row()).revoked_at, null);

        // The answer, as the question page's form posts it (with that page's anti-forgery token).
        const csrf = /name="_csrf" value="([^"]+)"/.exec(asked.body)?.[1] ?? '';
        const confirmed = await owner.postRaw(revoke, { _csrf: csrf, confirm: 'yes' });
        assert.equal(confirmed.statusCode, 303);
        assert.equal(confirmed.headers.location, '/dashboard/projects/alpha/tokens');
        assert.notEqual((await row()).revoked_at, null);
        assert.equal((await models(token)).statusCode, 401);
      });

      test('the lifetime is chosen on the form, up to the maximum; a longer one is refused there', async () => {
        const owner = await signedIn('chooser@example.com');
        const form = await owner.get('/dashboard/projects/alpha/tokens/new');
        const options = [...form.body.matchAll(/<option value="([^"]+)"( selected)?>([^<]+)<\/option>/g)];
        assert.deepEqual(
          options.map((option) => `${option[1]}${option[2] ?? ''}: ${option[3]}`),
          ['1h: 1h', '12h: 12h', '1d: 1d', '7d selected: 7d (default)', '30d: 30d (maximum)'],
          'the configured default (7d) chosen, nothing beyond the maximum (30d)',
        );
        const expiresIn = async (description: string) => {
          const row = await gateway.database.db
            .selectFrom('access_tokens')
            .select(['created_at', 'expires_at'])
            .where('description', '=', description)
            .executeTakeFirstOrThrow();
          return Date.parse(row.expires_at) - Date.parse(row.created_at);
        };
        const day = await owner.post(
          '/dashboard/projects/alpha/tokens',
          { description: 'one day', ttl: '1d' },
          '/dashboard/projects/alpha/tokens/new',
        );
        assert.equal(day.statusCode, 303);
        assert.equal(await expiresIn('one day'), 86_400_000);

        for (const [ttl, message] of [
          ['31d', 'A token may live at most 30d; &#39;31d&#39; is longer.'],
          ['forever', '&#39;forever&#39; is not a lifetime'],
        ] as const) {
          const refused = await owner.post(
            '/dashboard/projects/alpha/tokens',
            { description: `too long ${ttl}`, ttl },
            '/dashboard/projects/alpha/tokens/new',
          );
          assert.equal(refused.statusCode, 400);
          assert.ok(
            refused.body.includes(
              `<label for="ttl">Lifetime</label><br /><span id="ttl-problem" role="alert" class="error">${message}`,
            ),
            `the reason next to the field (${ttl})`,
          );
          assert.match(refused.body, new RegExp(`value="too long ${ttl}"`), 'the description is kept');
          assert.equal(await issuedWith(`too long ${ttl}`), 0);
        }
      });

      test('a form posted without the anti-forgery token is refused with a page, nothing changes', async () => {
        const owner = await signedIn('owner@example.com');
        const response = await owner.postRaw('/dashboard/projects/alpha/tokens', { description: 'forged' });
        assert.equal(response.statusCode, 403);
        assert.match(String(response.headers['content-type']), /text\/html/);
        assert.match(response.body, /did not come from this site/);
        assert.equal(await issuedWith('forged'), 0);
      });

      test("another user's project and token are not found", async () => {
        const other = await signedIn('other@example.com');
        const project = await other.get('/dashboard/projects/alpha');
        assert.equal(project.statusCode, 404);
        assert.match(String(project.headers['content-type']), /text\/html/);
        const generate = await other.post('/dashboard/projects/alpha/tokens', { description: 'x' });
        assert.equal(generate.statusCode, 404);

        const owner = await signedIn('owner@example.com');
        await owner.post(
          '/dashboard/projects/alpha/tokens',
          { description: 'owner token' },
          '/dashboard/projects/alpha/tokens/new',
        );
        const ownersToken = await gateway.database.db
          .selectFrom('access_tokens')
          .select('jti')
          .where('description', '=', 'owner token')
          .executeTakeFirstOrThrow();
        await other.post(
          '/dashboard/projects/beta/tokens',
          { description: 'mine' },
          '/dashboard/projects/beta/tokens/new',
        );
        const revoke = await other.post(`/dashboard/projects/beta/tokens/${ownersToken.jti}/revoke`, {
          confirm: 'yes',
        });
        assert.equal(revoke.statusCode, 404);
        const row = await gateway.database.db
          .selectFrom('access_tokens')
          .select('revoked_at')
          .where('jti', '=', ownersToken.jti)
          .executeTakeFirstOrThrow();
        assert.equal(row.revoked_at, null);
      });

      test('a member whose membership is pending gets no token page and cannot generate', async () => {
        const waiting = await signedIn('waiting@example.com');
        assert.equal((await waiting.get('/dashboard/projects/alpha/tokens')).statusCode, 404);
        const generate = await waiting.post(
          '/dashboard/projects/alpha/tokens',
          { description: 'sneaky' },
          '/dashboard',
        );
        assert.equal(generate.statusCode, 404);
        assert.equal(await issuedWith('sneaky'), 0);
      });

      test('a member of a project without allocation sees why Generate is not offered', async () => {
        const owner = await signedIn('owner@example.com');
        const list = await owner.get('/dashboard/projects/dry/tokens');
        assert.match(list.body, /this project has no allocation yet/);
        const generate = await owner.post(
          '/dashboard/projects/dry/tokens',
          { description: 'x' },
          '/dashboard/projects/dry/tokens',
        );
        assert.equal(generate.statusCode, 403);
      });

      test('an empty description gets the form back with a message', async () => {
        const owner = await signedIn('owner@example.com');
        const response = await owner.post(
          '/dashboard/projects/alpha/tokens',
          { description: '   ' },
          '/dashboard/projects/alpha/tokens/new',
        );
        assert.equal(response.statusCode, 400);
        assert.match(response.body, /role="alert" class="error">Give the token a description/);
      });

      test('token generation is rate-limited per user, with a page', async () => {
        const user = 'limited@example.com';
        await sessionFor(gateway.database, user);
        await requestMembership(gateway.database.db, { slug: 'beta', email: user });
        await approveMembership(gateway.database.db, { slug: 'beta', email: user });
        const browser = await signedIn(user);
        const statuses: number[] = [];
        for (let i = 0; i < 6; i++) {
          const response = await browser.post(
            '/dashboard/projects/beta/tokens',
            { description: `t${i}` },
            '/dashboard/projects/beta/tokens',
          );
          statuses.push(response.statusCode);
          if (response.statusCode === 429) assert.match(response.body, /Too many tokens/);
        }
        assert.deepEqual(statuses, [303, 303, 303, 303, 303, 429]);
      });
    });

    describe('sessions', () => {
      test('an idle session ends: pages send to sign-in, forms are refused, the row is deleted', async () => {
        const { cookie, idHash } = await sessionFor(gateway.database, 'owner@example.com');
        const browser = injectBrowser(gateway.app, cookie);
        const page = await browser.get('/dashboard/projects/alpha');
        const csrf = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] ?? '';
        const idle = new Date(Date.now() - 31 * 60_000).toISOString();
        await gateway.database.db
          .updateTable('dashboard_sessions')
          .set({ seen_at: idle })
          .where('id_hash', '=', idHash)
          .execute();
        const form = await browser.postRaw('/dashboard/projects/alpha/tokens', {
          _csrf: csrf,
          description: 'late',
        });
        assert.equal(form.statusCode, 401);
        assert.match(form.body, /Your session has ended/);
        const again = await injectBrowser(gateway.app, cookie).get('/dashboard/projects/alpha');
        assert.equal(again.statusCode, 302);
        assert.equal(again.headers.location, '/dashboard/login?returnTo=%2Fdashboard%2Fprojects%2Falpha');
        const rows = await gateway.database.db
          .selectFrom('dashboard_sessions')
          .select('id_hash')
          .where('id_hash', '=', idHash)
          .execute();
        assert.equal(rows.length, 0);
      });

      test('a session past its absolute expiry ends although it was active', async () => {
        const { cookie, idHash } = await sessionFor(gateway.database, 'owner@example.com');
        const past = new Date(Date.now() - 1000).toISOString();
        await gateway.database.db
          .updateTable('dashboard_sessions')
          .set({ expires_at: past })
          .where('id_hash', '=', idHash)
          .execute();
        const response = await injectBrowser(gateway.app, cookie).get('/dashboard/projects/alpha');
        assert.equal(response.statusCode, 302);
      });

      test('the anti-forgery cookie is HttpOnly and SameSite=Lax, scoped to /dashboard', async () => {
        const owner = await signedIn('owner@example.com');
        const response = await owner.get('/dashboard');
        const cookie = [response.headers['set-cookie'] ?? []]
          .flat()
          .find((line) => line.startsWith('gw_csrf='));
        assert.match(cookie ?? '', /Path=\/dashboard; HttpOnly; SameSite=Lax$/, 'no Secure over plain HTTP');
      });
    });
  });
