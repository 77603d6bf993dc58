/**
 * The real sign-in over HTTP on a listening gateway: the dashboard's OpenID Connect client
 * against the in-process development identity provider (login form, consent on first
 * sign-in), then users matched by (issuer, subject), sessions regenerated and ended.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { testEngines } from '@app/db/testing.ts';
import { loadDevUsers } from '../dev-idp/index.ts';
import { type DashboardTestApp, formAction, redirectingBrowser, startDashboardApp } from './testing.ts';

for (const { engine, skip } of testEngines())
  describe(`dashboard sign-in (${engine})`, { skip }, () => {
    let gateway: DashboardTestApp;
    let base: string;

    before(async () => {
      gateway = await startDashboardApp({ engine });
      base = await gateway.app.listen({ host: '127.0.0.1', port: 0 });
    });
    after(() => gateway.close());

    function devUser(email: string) {
      const user = loadDevUsers(gateway.config.dataDir).find((candidate) => candidate.email === email);
      assert.ok(user, `dev user ${email}`);
      return user;
    }

    const browser = () => redirectingBrowser(base);

    async function signIn(email: string, options: { expectConsent: boolean }) {
      const b = browser();
      const login = await b.request('/dashboard/login');
      assert.match(login.url, /\/dev-idp\/interaction\//);
      assert.match(login.text, /<label for="password">Password<\/label>/);
      const user = devUser(email);
      const next = await b.request(formAction(login.text, 'Sign in'), {
        method: 'POST',
        form: { email: user.email, password: user.password },
      });
      let landed = next;
      if (options.expectConsent) {
        assert.match(next.text, /<h1>Authorize access to your profile<\/h1>/);
        landed = await b.request(formAction(next.text, 'Authorize'), { method: 'POST', form: {} });
      }
      return { b, landed, consent: next };
    }

    describe('sign-in through the development identity provider', () => {
      test('first sign-in asks for consent, creates the user and a session; sign-out ends it', async () => {
        const { b, landed, consent } = await signIn('alice@example.com', { expectConsent: true });
        // Who asks for what, in one sentence, and what each scope gives it.
        const question =
          /<p id="consent-question">(.*?)<\/p><ul aria-labelledby="consent-question">(.*?)<\/ul>/.exec(
            consent.text,
          );
        // (The markup is squashed, spaces next to tags dropped; browser.test.ts reads the real text.)
        assert.equal(question?.[1], '<strong>Model gateway dashboard</strong>wants to access your profile:');
        assert.deepEqual(
          [...(question?.[2] ?? '').matchAll(/<li>(.*?)<\/li>/g)].map((item) => item[1]),
          ['your user id at this provider (openid)', 'your email address (email)', 'your name (profile)'],
        );
        assert.ok(
          consent.text.includes(`<link rel="icon" href="${base}/favicon.ico" type="image/svg+xml" />`),
        );
        assert.equal(landed.status, 200);
        assert.match(landed.url, /\/dashboard$/);
        assert.match(landed.text, /Signed in as <strong>alice@example.com<\/strong>/);
        const identity = await gateway.database.db
          .selectFrom('user_identities')
          .innerJoin('users', 'users.id', 'user_identities.user_id')
          .select(['issuer', 'subject', 'users.email'])
          .executeTakeFirstOrThrow();
        assert.deepEqual(
          { ...identity },
          { issuer: `${base}/dev-idp`, subject: 'dev-alice', email: 'alice@example.com' },
        );
        const session = b.jar.get('gw_session');
        assert.ok(session);
        const start = await fetch(`${base}/dashboard/login`, { redirect: 'manual' });
        assert.match(
          start.headers.getSetCookie().join(),
          /gw_login=[^;]+; Max-Age=600; Path=\/dashboard; HttpOnly; SameSite=Lax/,
        );

        const signOut = await b.request(formAction(landed.text, 'Sign out'), {
          method: 'POST',
          form: { _csrf: /name="_csrf" value="([^"]+)"/.exec(landed.text)?.[1] ?? '' },
        });
        // The provider asks whether to end its own session too (RP-initiated logout).
        assert.match(signOut.text, /Sign out of the development identity provider too/);
        const rows = await gateway.database.db.selectFrom('dashboard_sessions').select('user_id').execute();
        assert.equal(rows.length, 0, 'the server-side session is gone');
        const replay = await fetch(`${base}/dashboard/projects/any`, {
          headers: { cookie: `gw_session=${session}` },
          redirect: 'manual',
        });
        assert.equal(replay.status, 302, 'the old session cookie no longer signs in');
        assert.match(replay.headers.get('location') ?? '', /^\/dashboard\/login/);
      });

      test('the next sign-in (same provider session) skips consent and gets a new session id', async () => {
        const { b, landed } = await signIn('bob@example.com', { expectConsent: true });
        const first = b.jar.get('gw_session');
        const again = await b.request('/dashboard/login');
        assert.match(
          again.text,
          /Signed in as <strong>bob@example.com<\/strong>/,
          'no login form, no consent',
        );
        const second = b.jar.get('gw_session');
        assert.ok(first && second && first !== second, 'the session id is regenerated at sign-in');
        assert.ok(landed.text.includes('Your projects'));
        const users = await gateway.database.db
          .selectFrom('users')
          .select('email')
          .where('email', '=', 'bob@example.com')
          .execute();
        assert.equal(users.length, 1, 'matched by (issuer, subject), not created twice');
      });

      test('an operator-created account is linked by verified email and keeps its admin rights', async () => {
        await gateway.database.db
          .insertInto('users')
          .values({ email: 'demo@example.com', is_admin: 1, created_at: new Date().toISOString() })
          .execute();
        const { landed } = await signIn('demo@example.com', { expectConsent: true });
        assert.match(landed.text, /All projects \(gateway admin\)/);
      });

      test('a wrong password shows the form again with an error', async () => {
        const b = browser();
        const login = await b.request('/dashboard/login');
        const retry = await b.request(formAction(login.text, 'Sign in'), {
          method: 'POST',
          form: { email: 'alice@example.com', password: 'not-the-password' },
        });
        assert.equal(retry.status, 401);
        assert.match(retry.text, /role="alert">Wrong email or password/);
      });

      test('a callback that this browser did not start is refused with a page', async () => {
        const response = await fetch(`${base}/dashboard/callback?code=stolen&state=guess`, {
          headers: { accept: 'text/html' },
        });
        assert.equal(response.status, 400);
        assert.match(response.headers.get('content-type') ?? '', /text\/html/);
        assert.match(await response.text(), /This sign-in was not started here/);
      });
    });
  });
