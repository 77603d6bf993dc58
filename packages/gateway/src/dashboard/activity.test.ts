/**
 * The activity log of a project after real chat calls through the upstream simulator, on
 * SQLite and PostgreSQL: who sees which requests, the filters, a request's attempts grouped,
 * keyset paging both ways, bad filters refused with the dashboard's error page, the CSV export.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { testEngines } from '@app/db/testing.ts';
import { type Simulator, startSimulator } from '@app/upstream-simulator';
import {
  addProject,
  approveMembership,
  issueToken,
  requestMembership,
  setAllocation,
} from '../access/admin.ts';
import { loadSigningKeys, signingKeyLocation } from '../access/keys.ts';
import { ACTIVITY_PAGE_SIZE } from './routes/activity.ts';
import { type DashboardTestApp, injectBrowser, sessionFor, settled, startDashboardApp } from './testing.ts';

/** A token description a spreadsheet would run as a formula, with CSV's special characters. */
const TRICKY = '=cmd|calc, "quoted"';

/** The request ids of the page's rows, by group (one tbody per request). */
function groups(body: string): string[][] {
  return [...body.matchAll(/<tbody>(.*?)<\/tbody>/g)].map((group) =>
    [...(group[1] ?? '').matchAll(/<tr data-request="([^"]*)"/g)].map((row) => row[1] ?? ''),
  );
}

const rowsOf = (body: string) => groups(body).flat();
const href = (body: string, rel: string) =>
  new RegExp(`<a rel="${rel}" href="([^"]+)"`).exec(body)?.[1]?.replaceAll('&amp;', '&');

for (const { engine, skip } of testEngines())
  describe(`the activity log (${engine})`, { skip }, () => {
    let sim: Simulator;
    let gateway: DashboardTestApp;
    const jtis: Record<string, string> = {};
    const userIds: Record<string, number> = {};
    const today = new Date().toISOString().slice(0, 10);

    function chat(token: string, extra: Record<string, unknown> = {}) {
      return gateway.app.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: { authorization: `Bearer ${token}` },
        payload: { model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'Hi' }], ...extra },
      });
    }

    before(async () => {
      sim = await startSimulator();
      gateway = await startDashboardApp({ engine, simulator: sim });
      const db = gateway.database.db;
      await addProject(db, { slug: 'lab' });
      await setAllocation(db, { slug: 'lab', provider: 'developer', usd: 5 });
      await setAllocation(db, { slug: 'lab', provider: 'cloud_c', usd: 5 });
      const keys = await loadSigningKeys(
        signingKeyLocation(gateway.config.dataDir, gateway.config.access.signingKeyPath),
      );
      const policy = {
        defaultTtl: gateway.config.access.tokenTtl,
        maxTtl: gateway.config.access.tokenMaxTtl,
      };
      const tokens: Record<string, string> = {};
      for (const email of ['dev@example.com', 'other@example.com', 'lead@example.com']) {
        userIds[email] = (await sessionFor(gateway.database, email)).userId;
        await requestMembership(db, { slug: 'lab', email });
        await approveMembership(db, { slug: 'lab', email, admin: email.startsWith('lead') });
        const description = email.startsWith('dev') ? TRICKY : `${email.split('@')[0]} token`;
        const issued = await issueToken(db, keys, policy, { email, slug: 'lab', description });
        [tokens[email], jtis[email]] = [issued.token, issued.jti];
      }
      const dev = tokens['dev@example.com'] ?? '';
      const other = tokens['other@example.com'] ?? '';
      assert.equal((await chat(dev)).statusCode, 200);
      assert.equal((await chat(dev, { model: 'gpt-5.4-mini@cloud_c' })).statusCode, 200);
      // Rate limited on an explicit provider: retried twice, then passed through (3 attempts).
      const limited = await chat(dev, {
        model: 'gpt-5.4-mini@developer',
        x_simulator: { fail_status: 429, retry_after: '0' },
      });
      assert.equal(limited.statusCode, 429, limited.body);
      assert.equal((await chat(other)).statusCode, 200);
      await settled(gateway.database, 6);
    });
    after(async () => {
      await gateway?.close();
      await sim?.close();
    });

    async function browser(email: string) {
      return injectBrowser(gateway.app, (await sessionFor(gateway.database, email)).cookie);
    }

    test('a project admin sees every request; a failed-over one as its attempts, in order', async () => {
      const lead = await browser('lead@example.com');
      const project = await lead.get('/dashboard/projects/lab');
      assert.match(
        project.body,
        /<a class="button" href="\/dashboard\/projects\/lab\/activity">Activity<\/a>/,
      );
      const page = await lead.get('/dashboard/projects/lab/activity');
      assert.equal(page.statusCode, 200);
      assert.equal(rowsOf(page.body).length, 6);
      const retried = groups(page.body).find((group) => group.length > 1);
      assert.ok(retried, 'the retried request is one group');
      assert.equal(retried.length, 3);
      assert.equal(new Set(retried).size, 1);
      const id = retried[0] ?? '';
      const attempts = [...page.body.matchAll(new RegExp(`data-request="${id}" data-attempt="(\\d+)"`, 'g'))];
      assert.deepEqual(
        attempts.map((match) => match[1]),
        ['1', '2', '3'],
      );
      assert.match(page.body, /rate_limited \(429\)/);
      assert.match(page.body, /<td>other@example.com<\/td>/);
      assert.match(page.body, /<td>dev@example.com<\/td>/);
    });

    test('a gateway operator who is no member sees every request too', async () => {
      await sessionFor(gateway.database, 'root@example.com', { admin: true });
      const root = await browser('root@example.com');
      const page = await root.get('/dashboard/projects/lab/activity');
      assert.equal(page.statusCode, 200);
      assert.equal(rowsOf(page.body).length, 6);
      assert.match(page.body, /<label for="f-user">User<\/label>/);
    });

    test('a member sees only their own requests, whatever the query says', async () => {
      const dev = await browser('dev@example.com');
      const page = await dev.get('/dashboard/projects/lab/activity');
      assert.equal(rowsOf(page.body).length, 5);
      assert.doesNotMatch(page.body, /other@example.com|other token/);
      const asked = await dev.get(`/dashboard/projects/lab/activity?user=${userIds['other@example.com']}`);
      assert.equal(rowsOf(asked.body).length, 5);
      const theirs = await dev.get(`/dashboard/projects/lab/activity?token=${jtis['other@example.com']}`);
      assert.match(theirs.body, /No requests match/);
      const csv = await gateway.app.inject({
        url: '/dashboard/projects/lab/activity.csv',
        cookies: { gw_session: (await sessionFor(gateway.database, 'dev@example.com')).cookie },
      });
      assert.equal(csv.body.trim().split('\r\n').length, 1 + 5);
    });

    test('each filter narrows the list to what the ledger holds for it', async () => {
      const lead = await browser('lead@example.com');
      const count = async (query: string) =>
        rowsOf((await lead.get(`/dashboard/projects/lab/activity?${query}`)).body).length;
      assert.equal(await count(`token=${jtis['other@example.com']}`), 1);
      assert.equal(await count(`user=${userIds['dev@example.com']}`), 5);
      assert.equal(await count('provider=cloud_c'), 1);
      assert.equal(await count('status=error'), 3);
      assert.equal(await count('status=ok&provider=developer'), 2);
      const [model] = await gateway.database.db.selectFrom('usage').select('model').limit(1).execute();
      assert.equal(await count(`model=${encodeURIComponent(model?.model ?? '')}`), 6);
      assert.equal(await count('model=no-such-model'), 0);
      assert.equal(await count(`from=${today}&to=${today}`), 6);
      assert.equal(await count('to=2020-01-01'), 0);
      // The form's unset choices arrive empty: no filter.
      assert.equal(await count('token=&user=&provider=&model=&status=&from=&to='), 6);
    });

    test('bad filters get the dashboard error page, not a crash', async () => {
      const lead = await browser('lead@example.com');
      for (const [query, message] of [
        ['status=bogus', 'The status filter is not valid.'],
        ['provider=elsewhere', 'The provider filter is not valid.'],
        ['user=abc', 'The user filter is not valid.'],
        ['from=2026-13-01', '2026-13-01 is not a day'],
        ['to=yesterday', 'The last day filter is not valid.'],
        ['from=2026-02-30', '2026-02-30 is not a day'],
        ['from=2026-02-02&to=2026-02-01', 'The first day comes after the last day.'],
        ['before=0', 'The page filter is not valid.'],
        ['sort=id', 'The filter has a field it does not know'],
      ] as const) {
        for (const path of ['activity', 'activity.csv']) {
          const page = await lead.get(`/dashboard/projects/lab/${path}?${query}`);
          assert.equal(page.statusCode, 400, `${path}?${query}`);
          assert.match(page.body, /<p role="alert">/);
          assert.ok(page.body.includes(message.replaceAll('"', '&quot;')), `${query}: ${page.body}`);
        }
      }
    });

    test('the CSV export: the filter, every column, quoting and formula-safe cells', async () => {
      const cookie = (await sessionFor(gateway.database, 'lead@example.com')).cookie;
      const response = await gateway.app.inject({
        url: `/dashboard/projects/lab/activity.csv?user=${userIds['dev@example.com']}`,
        cookies: { gw_session: cookie },
      });
      assert.equal(response.statusCode, 200);
      assert.equal(response.headers['content-type'], 'text/csv; charset=utf-8');
      assert.equal(
        response.headers['content-disposition'],
        `attachment; filename="activity-lab-${today}.csv"`,
      );
      const lines = response.body.split('\r\n');
      assert.equal(lines.at(-1), '', 'every record ends with CRLF');
      assert.match(
        lines[0] ?? '',
        /^time,request_id,attempt,user,token_id,token_description,provider,model,/,
      );
      assert.equal(lines.length, 1 + 5 + 1);
      const escaped = `"'${TRICKY.replaceAll('"', '""')}"`;
      for (const line of lines.slice(1, -1)) assert.ok(line.includes(`,${escaped},`), line);
      const stored = await gateway.database.db
        .selectFrom('usage')
        .select(({ fn }) => fn.sum<number>('cost_micros').as('cost'))
        .where('user_id', '=', userIds['dev@example.com'] ?? 0)
        .executeTakeFirstOrThrow();
      const costColumn = (lines[0] ?? '').split(',').indexOf('cost_usd');
      const total = lines
        .slice(1, -1)
        .map((line) => Number(line.replace(escaped, 'x').split(',')[costColumn]))
        .reduce((sum, usd) => sum + usd, 0);
      assert.equal(Math.round(total * 1_000_000), Number(stored.cost));
    });

    test('one column per meter the rows hold, on the page and in the CSV, a meter unknown today too', async () => {
      const db = gateway.database.db;
      const project = await addProject(db, { slug: 'metered' });
      await requestMembership(db, { slug: 'metered', email: 'lead@example.com' });
      await approveMembership(db, { slug: 'metered', email: 'lead@example.com', admin: true });
      const row = (requestId: string, meters: Record<string, number>, minute: number) => ({
        token_jti: 'metered-token',
        user_id: userIds['lead@example.com'] ?? 0,
        project_id: project.id,
        provider: 'developer',
        model: 'm',
        prompt_tokens: 10,
        completion_tokens: 2,
        reserved_micros: 0,
        status: 'ok' as const,
        created_at: `2026-11-02T10:0${minute}:00.000Z`,
        request_id: requestId,
        meters: JSON.stringify(meters),
      });
      await db
        .insertInto('usage')
        .values([
          row('with-image', { input: 5, image_input: 40 }, 1),
          row('cached', { input: 7, cached_input: 3, output: 2 }, 2),
        ])
        .execute();
      const page = await (await browser('lead@example.com')).get('/dashboard/projects/metered/activity');
      const titles = [...page.body.matchAll(/<th scope="col" class="meter">([^<]*)<\/th>/g)].map((m) => m[1]);
      assert.deepEqual(titles, ['input', 'cached_input', 'output', 'image_input']);
      const cells = (id: string) => {
        const tr = new RegExp(`<tr data-request="${id}"[\\s\\S]*?</tr>`).exec(page.body)?.[0] ?? '';
        return [...tr.matchAll(/<td class="number">(\d+)<\/td>/g)].map((m) => m[1]);
      };
      assert.deepEqual(cells('with-image'), ['5', '0', '0', '40']);
      assert.deepEqual(cells('cached'), ['7', '3', '2', '0']);
      const csv = await gateway.app.inject({
        url: '/dashboard/projects/metered/activity.csv',
        cookies: { gw_session: (await sessionFor(gateway.database, 'lead@example.com')).cookie },
      });
      const [header, newest, oldest] = csv.body.split('\r\n').map((line) => line.split(','));
      assert.deepEqual(header?.slice(-4), ['input', 'cached_input', 'output', 'image_input']);
      assert.deepEqual(newest?.slice(-4), ['7', '3', '2', '0']);
      assert.deepEqual(oldest?.slice(-4), ['5', '0', '0', '40']);
      const filtered = await gateway.app.inject({
        url: '/dashboard/projects/metered/activity.csv?to=2026-11-01',
        cookies: { gw_session: (await sessionFor(gateway.database, 'lead@example.com')).cookie },
      });
      assert.ok(filtered.body.startsWith('time,'), 'no rows: the fixed columns only');
      assert.ok(!filtered.body.includes('input,'), filtered.body);
    });

    test(`pages of ${ACTIVITY_PAGE_SIZE} by keyset, older then newer again, none lost or repeated`, async () => {
      const db = gateway.database.db;
      const project = await addProject(db, { slug: 'bulk' });
      await requestMembership(db, { slug: 'bulk', email: 'lead@example.com' });
      await approveMembership(db, { slug: 'bulk', email: 'lead@example.com', admin: true });
      const total = 2 * ACTIVITY_PAGE_SIZE + 7;
      const base = Date.parse('2026-11-01T00:00:00.000Z');
      const rows = Array.from({ length: total }, (_, i) => ({
        token_jti: 'bulk-token',
        user_id: userIds['lead@example.com'] ?? 0,
        project_id: project.id,
        provider: 'developer',
        model: 'm',
        reserved_micros: 0,
        status: 'ok' as const,
        // Pairs share a start time: the order falls back to the id.
        created_at: new Date(base + Math.floor(i / 2) * 1_000).toISOString(),
        request_id: `bulk-${String(i).padStart(3, '0')}`,
      }));
      await db.insertInto('usage').values(rows).execute();
      const lead = await browser('lead@example.com');
      const seen: string[] = [];
      let url: string | undefined = '/dashboard/projects/bulk/activity';
      const pages: string[] = [];
      while (url) {
        const page = await lead.get(url);
        pages.push(url);
        seen.push(...rowsOf(page.body));
        url = href(page.body, 'next');
      }
      const expected = rows.map((row) => row.request_id).reverse();
      assert.deepEqual(seen, expected);
      assert.equal(pages.length, 3);
      // Back from the last page by the "newer" links.
      const back: string[] = [];
      let newer: string | undefined = pages.at(-1);
      while (newer) {
        const page = await lead.get(newer);
        back.unshift(...rowsOf(page.body));
        newer = href(page.body, 'prev');
      }
      assert.deepEqual(back, expected);
    });
  });
