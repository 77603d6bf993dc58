/**
 * What the dashboard shows of a project to someone who may not see it: a pending member, a
 * revoked member and an outsider get, on every page and form of a project, the answer they get
 * for a project that does not exist; a membership request is answered alike for a known and an
 * unknown name, and one for an unknown name records nothing. Approved members and gateway
 * admins still see the project.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { testEngines } from '@app/db/testing.ts';
import { addProject, approveMembership, requestMembership, revokeMembership } from '../access/admin.ts';
import { seedAccount } from '../access/testing.ts';
import { type DashboardTestApp, injectBrowser, sessionFor, startDashboardApp } from './testing.ts';

const KNOWN = 'skunkworks';
const UNKNOWN = 'nosuchthing';

/** A response as the user sees it, with the slug and the per-response anti-forgery token neutral. */
function visible(response: { statusCode: number; body: string }, slug: string) {
  const body = response.body
    .replaceAll(slug, 'SLUG')
    .replace(/name="_csrf" value="[^"]*"/g, 'name="_csrf" value="CSRF"');
  return { status: response.statusCode, body };
}

for (const { engine, skip } of testEngines())
  describe(`a project's pages to those who may not see it (${engine})`, { skip }, () => {
    let gateway: DashboardTestApp;
    /** A token of the revoked member, issued while the membership was approved. */
    let revokedJti = '';

    before(async () => {
      gateway = await startDashboardApp({ engine });
      const db = gateway.database.db;
      const { principal } = await seedAccount(gateway.database, {
        email: 'revoked@example.com',
        projectSlug: KNOWN,
        allocations: { developer: 40 },
        config: gateway.config,
      });
      revokedJti = principal.tokenId;
      await revokeMembership(db, { slug: KNOWN, email: 'revoked@example.com' });
      await seedAccount(gateway.database, {
        email: 'member@example.com',
        projectSlug: KNOWN,
        allocations: { developer: 40 },
        config: gateway.config,
      });
      await sessionFor(gateway.database, 'pending@example.com');
      await requestMembership(db, { slug: KNOWN, email: 'pending@example.com' });
      await sessionFor(gateway.database, 'root@example.com', { admin: true });
      await addProject(db, { slug: 'elsewhere' });
    });
    after(() => gateway.close());

    async function signedIn(email: string) {
      return injectBrowser(gateway.app, (await sessionFor(gateway.database, email)).cookie);
    }

    /** Every page and form of a project, as a browser would reach it. */
    function reads(slug: string): Array<[string, string]> {
      const base = `/dashboard/projects/${slug}`;
      return [
        ['GET', base],
        ['GET', `${base}/tokens`],
        ['GET', `${base}/tokens/new`],
        ['GET', `${base}/tokens/${revokedJti}`],
        ['GET', `${base}/audit`],
        ['GET', `${base}/activity`],
        ['GET', `${base}/activity.csv`],
      ];
    }
    function writes(slug: string): Array<[string, Record<string, string>]> {
      const base = `/dashboard/projects/${slug}`;
      return [
        [`${base}/tokens`, { description: 'sneaky' }],
        [`${base}/tokens/${revokedJti}/revoke`, { confirm: 'yes' }],
        [`${base}/members/approve`, { email: 'pending@example.com' }],
        [`${base}/members/revoke`, { email: 'pending@example.com', confirm: 'yes' }],
        [`${base}/allocations`, { provider: 'developer', usd: '1' }],
        [`${base}/ip-allow`, { ipAllow: '' }],
      ];
    }

    for (const email of ['pending@example.com', 'revoked@example.com', 'outsider@example.com'])
      test(`${email.split('@')[0]}: every page and form of the project answers as for one that does not exist`, async () => {
        const browser = await signedIn(email);
        const known = reads(KNOWN);
        for (const [index, [, unknownUrl]] of reads(UNKNOWN).entries()) {
          const [, knownUrl] = known[index] ?? ['', ''];
          const seen = visible(await browser.get(knownUrl), KNOWN);
          assert.equal(seen.status, 404, knownUrl);
          assert.deepEqual(seen, visible(await browser.get(unknownUrl), UNKNOWN), knownUrl);
          assert.doesNotMatch(seen.body, /\$40\.00|Spent|chart/, 'nothing of the project shows');
        }
        const knownWrites = writes(KNOWN);
        for (const [index, [unknownUrl, form]] of writes(UNKNOWN).entries()) {
          const [knownUrl] = knownWrites[index] ?? [''];
          const seen = visible(await browser.post(knownUrl, form), KNOWN);
          assert.equal(seen.status, 404, knownUrl);
          assert.deepEqual(seen, visible(await browser.post(unknownUrl, form), UNKNOWN), knownUrl);
        }
        const home = await browser.get('/dashboard');
        assert.ok(!home.body.includes(KNOWN), 'the project is not listed on the home page');
        const token = await gateway.database.db
          .selectFrom('access_tokens')
          .select('revoked_at')
          .where('jti', '=', revokedJti)
          .executeTakeFirstOrThrow();
        assert.equal(token.revoked_at, null, 'the refused revoke changed nothing');
      });

    test('a membership request is answered alike for a known and an unknown name; the unknown one records nothing', async () => {
      const db = gateway.database.db;
      const count = async (table: 'memberships' | 'audit_events') =>
        Number(
          (
            await db
              .selectFrom(table)
              .select((eb) => eb.fn.countAll().as('n'))
              .executeTakeFirstOrThrow()
          ).n,
        );
      const browser = await signedIn('curious@example.com');
      const before = { memberships: await count('memberships'), audit: await count('audit_events') };
      const unknown = await browser.post('/dashboard/memberships', { slug: UNKNOWN });
      assert.deepEqual(
        { memberships: await count('memberships'), audit: await count('audit_events') },
        before,
        'nothing recorded for a name no project has',
      );
      const known = await browser.post('/dashboard/memberships', { slug: 'elsewhere' });
      assert.equal(unknown.statusCode, 200);
      assert.match(unknown.body, /Request sent for project <strong>nosuchthing<\/strong>/);
      assert.deepEqual(visible(known, 'elsewhere'), visible(unknown, UNKNOWN));
      assert.equal(await count('memberships'), before.memberships + 1, 'the known one is recorded');
      // The pending request shows nowhere the unknown one would not: the project pages agree too.
      assert.deepEqual(
        visible(await browser.get('/dashboard/projects/elsewhere'), 'elsewhere'),
        visible(await browser.get(`/dashboard/projects/${UNKNOWN}`), UNKNOWN),
      );
      const empty = await browser.post('/dashboard/memberships', { slug: '  ' });
      assert.equal(empty.statusCode, 400);
      assert.match(empty.body, /role="alert" class="error">Enter the project&#39;s name/);
    });

    test('approved members and gateway admins see the project, its usage and their token pages', async () => {
      for (const email of ['member@example.com', 'root@example.com']) {
        const browser = await signedIn(email);
        const page = await browser.get(`/dashboard/projects/${KNOWN}`);
        assert.equal(page.statusCode, 200, email);
        assert.match(page.body, /<th scope="row">developer<\/th><td>\$40\.00<\/td>/, email);
        assert.match(page.body, /<svg class="chart"/, email);
        assert.equal((await browser.get(`/dashboard/projects/${KNOWN}/tokens`)).statusCode, 200, email);
      }
      const member = await signedIn('member@example.com');
      assert.match((await member.get('/dashboard')).body, /<a href="\/dashboard\/projects\/skunkworks">/);
    });

    test('a member approved again sees the project again', async () => {
      const db = gateway.database.db;
      await requestMembership(db, { slug: KNOWN, email: 'pending@example.com' });
      await approveMembership(db, { slug: KNOWN, email: 'pending@example.com' });
      const browser = await signedIn('pending@example.com');
      assert.equal((await browser.get(`/dashboard/projects/${KNOWN}`)).statusCode, 200);
    });
  });
