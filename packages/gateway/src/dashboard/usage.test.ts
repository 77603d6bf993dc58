/**
 * Usage in the dashboard after real chat calls through the upstream simulator: the figures of
 * the project page, its chart and the per-token page equal what the usage ledger recorded, on
 * SQLite and PostgreSQL; who may see which token's usage.
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
import { addMeters, meterOrder, storedMeters } from '../db/usage-meters.ts';
import { formatUsd } from '../money.ts';
import { type DashboardTestApp, injectBrowser, sessionFor, settled, startDashboardApp } from './testing.ts';

function chat(gateway: DashboardTestApp, token: string, extra: Record<string, unknown> = {}) {
  return gateway.app.inject({
    method: 'POST',
    url: '/v1/chat/completions',
    headers: { authorization: `Bearer ${token}` },
    payload: { model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'Say hello!' }], ...extra },
  });
}

/** The cells of the bucket row of `provider` in the usage table. */
function bucketRow(body: string, provider: string): string[] | undefined {
  const row = new RegExp(`<tr><th scope="row">${provider}</th>((?:<td>[^<]*</td>)+)</tr>`).exec(body)?.[1];
  return row ? [...row.matchAll(/<td>([^<]*)<\/td>/g)].map((match) => match[1] ?? '') : undefined;
}

/** data-micros of every bar of the chart with this id, by day. */
function bars(body: string, id: string): Map<string, number> {
  const svg = new RegExp(`<svg class="chart" id="${id}"[\\s\\S]*?</svg>`).exec(body)?.[0] ?? '';
  const found = [...svg.matchAll(/data-day="([\d-]+)" data-micros="(\d+)"/g)];
  return new Map(found.map((match) => [match[1] ?? '', Number(match[2])]));
}

for (const { engine, skip } of testEngines())
  describe(`usage in the dashboard (${engine})`, { skip }, () => {
    let sim: Simulator;
    let gateway: DashboardTestApp;
    let devToken = '';
    let otherJti = '';

    before(async () => {
      sim = await startSimulator();
      gateway = await startDashboardApp({ engine, simulator: sim });
      const db = gateway.database.db;
      await addProject(db, { slug: 'lab' });
      await setAllocation(db, { slug: 'lab', provider: 'developer', usd: 1 });
      await setAllocation(db, { slug: 'lab', provider: 'cloud_a', usd: 2 });
      for (const email of ['dev@example.com', 'other@example.com', 'lead@example.com']) {
        await sessionFor(gateway.database, email);
        await requestMembership(db, { slug: 'lab', email });
        await approveMembership(db, { slug: 'lab', email, admin: email.startsWith('lead') });
      }
      // The developer's token comes from the dashboard, as a user gets it.
      const dev = await signedIn('dev@example.com');
      await dev.post(
        '/dashboard/projects/lab/tokens',
        { description: 'notebook' },
        '/dashboard/projects/lab/tokens/new',
      );
      devToken =
        /id="new-token" class="token" readonly value="([^"]+)"/.exec(
          (await dev.get('/dashboard/projects/lab/tokens')).body,
        )?.[1] ?? '';
      const policy = {
        defaultTtl: gateway.config.access.tokenTtl,
        maxTtl: gateway.config.access.tokenMaxTtl,
      };
      const keys = await loadSigningKeys(
        signingKeyLocation(gateway.config.dataDir, gateway.config.access.signingKeyPath),
      );
      const other = await issueToken(db, keys, policy, {
        email: 'other@example.com',
        slug: 'lab',
        description: 'ci',
      });
      otherJti = other.jti;
      for (let i = 0; i < 3; i++) assert.equal((await chat(gateway, devToken)).statusCode, 200);
      assert.equal((await chat(gateway, other.token)).statusCode, 200);
      await settled(gateway.database, 4);
    });
    after(async () => {
      await gateway?.close();
      await sim?.close();
    });

    async function signedIn(email: string) {
      return injectBrowser(gateway.app, (await sessionFor(gateway.database, email)).cookie);
    }

    /** The finished rows of the usage ledger: their cost, number and meters. */
    async function ledger(where: { provider?: string; jti?: string } = {}) {
      let query = gateway.database.db.selectFrom('usage').select(['cost_micros', 'status', 'meters']);
      if (where.provider) query = query.where('provider', '=', where.provider);
      if (where.jti) query = query.where('token_jti', '=', where.jti);
      const rows = (await query.execute()).filter((row) => row.status !== 'reserved');
      return {
        spent: rows.reduce((sum, row) => sum + Number(row.cost_micros), 0),
        requests: rows.length,
        meters: addMeters(rows.map((row) => storedMeters(row.meters))),
      };
    }

    /** What GET /v1/account says of a bucket, in micro-dollars. */
    async function account(provider: string) {
      const response = await gateway.app.inject({
        url: '/v1/account',
        headers: { authorization: `Bearer ${devToken}` },
      });
      const body = response.json() as {
        allocations: Array<{
          provider: string;
          allocated: number;
          spent: number;
          reserved: number;
          remaining: number;
        }>;
      };
      const bucket = body.allocations.find((candidate) => candidate.provider === provider);
      assert.ok(bucket, provider);
      const micros = (usd: number) => Math.round(usd * 1_000_000);
      return {
        allocated: micros(bucket.allocated),
        spent: micros(bucket.spent),
        reserved: micros(bucket.reserved),
        remaining: micros(bucket.remaining),
      };
    }

    const ALLOCATED = { developer: 1_000_000, cloud_a: 2_000_000 } as const;

    test('the project page shows each bucket as the ledger has it, to the micro-dollar', async () => {
      const { spent, requests } = await ledger();
      assert.equal(requests, 4);
      assert.ok(spent > 0 && spent < 10_000, `four small requests cost under a cent (${spent})`);
      const page = await (await signedIn('dev@example.com')).get('/dashboard/projects/lab');
      assert.equal(page.statusCode, 200);
      // A column per meter the ledger holds (input and output at least: the simulator reports both).
      const meters = meterOrder(Object.keys((await ledger()).meters));
      assert.ok(meters.includes('input') && meters.includes('output'), meters.join());
      const header = /<th scope="col">Requests<\/th>([\s\S]*?)<\/tr>/.exec(page.body)?.[1] ?? '';
      assert.deepEqual(
        [...header.matchAll(/<th scope="col" class="meter">([^<]*)<\/th>/g)].map((m) => m[1]),
        meters,
      );
      for (const [provider, allocated] of Object.entries(ALLOCATED)) {
        const rows = await ledger({ provider });
        assert.deepEqual(
          bucketRow(page.body, provider),
          [
            formatUsd(allocated),
            formatUsd(rows.spent),
            '$0.00',
            formatUsd(allocated - rows.spent),
            String(rows.requests),
            ...meters.map((meter) => String(rows.meters[meter] ?? 0)),
          ],
          provider,
        );
        assert.equal((await account(provider)).spent, rows.spent, 'GET /v1/account agrees');
      }
    });

    test('a request still running shows as reserved and is not remaining', async () => {
      // The simulator holds the answer back, so the reservation stays open while the page is read.
      const running = chat(gateway, devToken, { x_simulator: { first_token_delay_ms: 1500 } });
      let held = 0;
      for (let tries = 0; tries < 200 && held === 0; tries++) {
        await new Promise((resolve) => setTimeout(resolve, 10));
        const buckets = await Promise.all(Object.keys(ALLOCATED).map((provider) => account(provider)));
        held = buckets.reduce((sum, bucket) => sum + bucket.reserved, 0);
      }
      assert.ok(held > 0, 'the request reserved budget');
      const page = await (await signedIn('dev@example.com')).get('/dashboard/projects/lab');
      const reservedCells: string[] = [];
      for (const provider of Object.keys(ALLOCATED)) {
        const expected = await account(provider);
        const row = bucketRow(page.body, provider);
        assert.deepEqual(
          row?.slice(0, 4),
          [expected.allocated, expected.spent, expected.reserved, expected.remaining].map(formatUsd),
          provider,
        );
        reservedCells.push(row?.[2] ?? '');
      }
      assert.ok(reservedCells.includes(formatUsd(held)), `one bucket shows ${formatUsd(held)} reserved`);
      assert.equal((await running).statusCode, 200);
      await settled(gateway.database, 5);
    });

    test('the chart of the project and of a token: one bar per day, today the ledger total', async () => {
      const today = new Date().toISOString().slice(0, 10);
      const dev = await signedIn('dev@example.com');
      const page = await dev.get('/dashboard/projects/lab');
      const project = bars(page.body, 'project-spend');
      assert.equal(project.size, 30);
      assert.equal(project.get(today), (await ledger()).spent);
      assert.match(page.body, /<title id="project-spend-title">Spend per day of project lab<\/title>/);
      assert.match(
        page.body,
        new RegExp(
          `<desc id="project-spend-desc">[^<]*${formatUsd((await ledger()).spent).replace('$', '\\$')} in all`,
        ),
      );
      assert.match(
        page.body,
        /role="img" aria-labelledby="project-spend-title" aria-describedby="project-spend-desc"/,
      );

      const devJti = (
        await gateway.database.db
          .selectFrom('access_tokens')
          .select('jti')
          .where('description', '=', 'notebook')
          .executeTakeFirstOrThrow()
      ).jti;
      const mine = await ledger({ jti: devJti });
      const tokenPage = await dev.get(`/dashboard/projects/lab/tokens/${devJti}`);
      assert.equal(tokenPage.statusCode, 200);
      assert.equal(bars(tokenPage.body, 'token-spend').get(today), mine.spent);
      assert.match(
        tokenPage.body,
        new RegExp(`<dt>Spent</dt><dd>${formatUsd(mine.spent).replace('$', '\\$')}</dd>`),
      );
      assert.ok(mine.spent < (await ledger()).spent, 'the token chart is the token, not the project');
    });

    test("members see their own tokens' usage; project admins every token; others get 404", async () => {
      const dev = await signedIn('dev@example.com');
      const page = await dev.get('/dashboard/projects/lab');
      assert.match(page.body, /Spend per token \(yours\)/);
      assert.ok(page.body.includes('>notebook</a>'));
      assert.ok(!page.body.includes('>ci</a>'), "another member's token is not listed");
      assert.equal((await dev.get(`/dashboard/projects/lab/tokens/${otherJti}`)).statusCode, 404);

      const lead = await signedIn('lead@example.com');
      const all = await lead.get('/dashboard/projects/lab');
      assert.ok(all.body.includes('>notebook</a>') && all.body.includes('>ci</a>'));
      assert.match(all.body, /<td>other@example.com<\/td><td>1<\/td>/);
      const other = await lead.get(`/dashboard/projects/lab/tokens/${otherJti}`);
      assert.equal(other.statusCode, 200);
      assert.equal(
        bars(other.body, 'token-spend').get(new Date().toISOString().slice(0, 10)),
        (await ledger({ jti: otherJti })).spent,
      );

      const stranger = await signedIn('stranger@example.com');
      assert.equal((await stranger.get(`/dashboard/projects/lab/tokens/${otherJti}`)).statusCode, 404);
    });

    test('a failed-over request counts once; a meter unknown today (image_input) gets its column', async () => {
      const db = gateway.database.db;
      await addProject(db, { slug: 'imaging' });
      await setAllocation(db, { slug: 'imaging', provider: 'developer', usd: 1 });
      await setAllocation(db, { slug: 'imaging', provider: 'cloud_b', usd: 1 });
      await requestMembership(db, { slug: 'imaging', email: 'lead@example.com' });
      await approveMembership(db, { slug: 'imaging', email: 'lead@example.com', admin: true });
      const keys = await loadSigningKeys(
        signingKeyLocation(gateway.config.dataDir, gateway.config.access.signingKeyPath),
      );
      const policy = {
        defaultTtl: gateway.config.access.tokenTtl,
        maxTtl: gateway.config.access.tokenMaxTtl,
      };
      const token = await issueToken(db, keys, policy, {
        email: 'lead@example.com',
        slug: 'imaging',
        description: 'vision',
      });
      // As the ledger writes them: attempt 1 failed on developer, a release never sent on
      // cloud_b, then attempt 2 answered on developer with an image in the prompt.
      const rows = [
        { provider: 'developer', attempt: 1, new_request: 1, cost: 0, meters: {} },
        { provider: 'cloud_b', attempt: null, new_request: 0, cost: 0, meters: {} },
        {
          provider: 'developer',
          attempt: 2,
          new_request: 0,
          cost: 900,
          meters: { input: 20, image_input: 765 },
        },
      ];
      for (const row of rows)
        await db
          .insertInto('usage')
          .values({
            token_jti: token.jti,
            user_id: token.userId,
            project_id: token.projectId,
            provider: row.provider,
            model: 'vision-1',
            reserved_micros: 1_000,
            cost_micros: row.cost,
            status: row.cost > 0 ? 'ok' : 'error',
            created_at: new Date().toISOString(),
            request_id: 'imaging-1',
            attempt: row.attempt,
            new_request: row.new_request,
            meters: JSON.stringify(row.meters),
          })
          .execute();
      const page = await (await signedIn('lead@example.com')).get('/dashboard/projects/imaging');
      assert.equal(page.statusCode, 200);
      assert.deepEqual(bucketRow(page.body, 'developer')?.slice(4), ['1', '20', '765']);
      assert.deepEqual(bucketRow(page.body, 'cloud_b')?.slice(4), ['0', '0', '0']);
      assert.match(
        page.body,
        /<th scope="col" class="meter">input<\/th><th scope="col" class="meter">image_input<\/th>/,
      );
      assert.match(page.body, /<td>lead@example.com<\/td><td>1<\/td>/, 'the token made one request');
    });
  });
