/**
 * GET /v1/account/usage over HTTP on both engines: the caller's own spend in the token's project
 * (never another member's, never another project's), per day and model, in the period asked for.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type IsolatedDatabase, isolatedDatabase, testEngines } from '@app/db/testing.ts';
import type { App } from '@app/http-kit';
import { startSimulator, type Simulator } from '@app/upstream-simulator';
import { buildApp } from '../app.ts';
import { type GatewayConfig, loadGatewayConfig } from '../config.ts';
import type { Principal } from '../contracts.ts';
import type { GatewayDatabase } from '../db/schema.ts';
import { ledgersSettled } from '../ledger/testing.ts';
import { issueToken, revokeToken } from './admin.ts';
import { loadSigningKeys, signingKeyLocation } from './keys.ts';
import { bearer } from './test-app.ts';
import { seedAccount } from './testing.ts';

interface Figures {
  requests: number;
  input_tokens: number;
  cached_input_tokens: number;
  output_tokens: number;
  cost: number;
  meters: Record<string, number>;
}
interface UsageBody {
  object: string;
  user: { email: string };
  token: string | null;
  since: string;
  until: string;
  totals: Figures;
  data: Array<Figures & { day: string; provider: string; model: string | null }>;
}

/** The meters of a row of 100 prompt tokens (10 read from the cache) and 20 generated. */
const METERS = { input: 90, cached_input: 10, output: 20 };

const errorOf = (body: string) => (JSON.parse(body) as { error: { code: string; message: string } }).error;
const DAY_MS = 86_400_000;

for (const { engine, skip } of testEngines()) {
  describe(`GET /v1/account/usage on ${engine}`, { skip }, () => {
    let app: App;
    let isolated: IsolatedDatabase<GatewayDatabase>;
    let sim: Simulator;
    let config: GatewayConfig;
    let dataDir: string;
    let alice: { token: string; principal: Principal };
    let aliceSecondJti: string;
    let bob: { token: string; principal: Principal };

    const row = (
      who: Principal,
      at: string,
      figures: {
        jti?: string;
        provider?: string;
        model?: string;
        cost: number;
        project?: number;
        meters?: Record<string, number>;
      },
    ) =>
      isolated.database.db
        .insertInto('usage')
        .values({
          token_jti: figures.jti ?? who.tokenId,
          user_id: who.userId,
          project_id: figures.project ?? who.projectId,
          provider: figures.provider ?? 'developer',
          model: figures.model ?? 'gpt-a',
          prompt_tokens: 100,
          completion_tokens: 20,
          meters: JSON.stringify(figures.meters ?? METERS),
          reserved_micros: figures.cost,
          cost_micros: figures.cost,
          status: 'ok',
          created_at: at,
        })
        .execute();

    const usage = async (query: string, token = alice.token) => {
      const response = await app.inject({ url: `/v1/account/usage${query}`, headers: bearer(token) });
      return { status: response.statusCode, body: response.body, json: () => response.json() as UsageBody };
    };
    const ok = async (query: string, token?: string) => {
      const response = await usage(query, token);
      assert.equal(response.status, 200, response.body);
      return response.json();
    };

    before(async () => {
      dataDir = mkdtempSync(join(tmpdir(), 'gw-account-usage-'));
      sim = await startSimulator();
      isolated = await isolatedDatabase<GatewayDatabase>(engine);
      config = loadGatewayConfig({}, { overrides: { dataDir, logLevel: 'silent' } });
      app = await buildApp(config, {
        database: isolated.database,
        simulatorUrl: sim.url,
        env: sim.credentialEnv,
        defaultMetrics: false,
      });
      const seed = (email: string, projectSlug: string) =>
        seedAccount(isolated.database, { email, projectSlug, allocations: { developer: 5 }, config });
      alice = await seed('alice@example.com', 'team');
      bob = await seed('bob@example.com', 'team');
      const carol = await seed('carol@example.com', 'other');
      const keys = await loadSigningKeys(signingKeyLocation(config.dataDir, config.access.signingKeyPath));
      const policy = { defaultTtl: config.access.tokenTtl, maxTtl: config.access.tokenMaxTtl };
      const second = await issueToken(isolated.database.db, keys, policy, {
        email: 'alice@example.com',
        slug: 'team',
      });
      aliceSecondJti = second.jti;
      const p = alice.principal;
      await row(p, '2026-01-09T23:59:59.999Z', { cost: 1 });
      await row(p, '2026-01-10T08:00:00.000Z', { cost: 1500 });
      await row(p, '2026-01-10T23:59:59.999Z', { cost: 500 });
      await row(p, '2026-01-11T00:00:00.000Z', {
        jti: aliceSecondJti,
        provider: 'cloud_b',
        model: 'b-1',
        cost: 250,
      });
      await row(p, '2026-01-12T00:00:00.000Z', { cost: 7 });
      // Another member of the same project, and Alice's id on another project's rows.
      await row(bob.principal, '2026-01-10T12:00:00.000Z', { cost: 99_999 });
      await row(p, '2026-01-10T12:00:00.000Z', { cost: 77_777, project: carol.principal.projectId });
    });
    after(async () => {
      await app.close();
      await sim.close();
      await isolated.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it("counts the caller's own requests of every token by day and model, in the dates asked for", async () => {
      const body = await ok('?since=2026-01-10&until=2026-01-11');
      assert.equal(body.object, 'account.usage');
      assert.equal(body.user.email, 'alice@example.com');
      assert.equal(body.token, null);
      assert.equal(body.since, '2026-01-10T00:00:00.000Z');
      assert.equal(body.until, '2026-01-12T00:00:00.000Z', 'a date as until includes that day');
      const tokens = { input_tokens: 100, cached_input_tokens: 10, output_tokens: 20 };
      assert.deepEqual(body.data, [
        {
          day: '2026-01-10',
          provider: 'developer',
          model: 'gpt-a',
          requests: 2,
          cost: 0.002,
          ...times(2, tokens),
          meters: times(2, METERS),
        },
        {
          day: '2026-01-11',
          provider: 'cloud_b',
          model: 'b-1',
          requests: 1,
          cost: 0.00025,
          ...tokens,
          meters: METERS,
        },
      ]);
      assert.deepEqual(body.totals, {
        requests: 3,
        input_tokens: 300,
        cached_input_tokens: 30,
        output_tokens: 60,
        cost: 0.00225,
        meters: times(3, METERS),
      });
      const bobs = await ok('?since=2026-01-10&until=2026-01-11', bob.token);
      assert.deepEqual(
        [bobs.totals.requests, bobs.totals.cost],
        [1, 0.099999],
        "Bob sees only his own row, not Alice's",
      );
    });

    it('takes timestamps (until exclusive, no offset meaning UTC) and token=current', async () => {
      const body = await ok('?since=2026-01-10T12:00:00Z&until=2026-01-11T00:00');
      assert.deepEqual(
        body.data.map((entry) => [entry.day, entry.requests, entry.cost]),
        [['2026-01-10', 1, 0.0005]],
      );
      const upTo = await ok('?until=2026-01-10');
      assert.equal(upTo.since, '2025-12-12T00:00:00.000Z', 'the 30 days up to until, its day included');
      assert.deepEqual(
        upTo.data.map((entry) => [entry.day, entry.requests]),
        [
          ['2026-01-09', 1],
          ['2026-01-10', 2],
        ],
      );
      const current = await ok('?since=2026-01-10&until=2026-01-11&token=current');
      assert.equal(current.token, alice.principal.tokenId);
      assert.deepEqual(
        current.data.map((entry) => [entry.day, entry.provider, entry.requests]),
        [['2026-01-10', 'developer', 2]],
        "the second token's request is left out",
      );
    });

    it('defaults to the last 30 days and counts a real request', async () => {
      const now = Date.now();
      await row(alice.principal, new Date(now - 31 * DAY_MS).toISOString(), { cost: 3 });
      const chat = await app.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: bearer(alice.token),
        payload: { model: 'gpt-5.4-mini', messages: [{ role: 'user', content: 'Say hello!' }] },
      });
      assert.equal(chat.statusCode, 200, chat.body);
      await ledgersSettled();
      const body = await ok('');
      // The same check on either side of a midnight the test might run across.
      const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
      const days = new Set([day(now), day(Date.now())]);
      assert.ok(
        [...days].some((today) => body.since === `${day(Date.parse(today) - 29 * DAY_MS)}T00:00:00.000Z`),
        body.since,
      );
      assert.ok(Date.parse(body.until) >= now);
      assert.deepEqual(
        body.data.map((entry) => [entry.provider, entry.requests]),
        [['developer', 1]],
      );
      assert.ok(days.has(body.data[0]?.day ?? ''), body.data[0]?.day);
      const [only] = body.data;
      assert.ok(only?.model && only.model.startsWith('gpt-5.4-mini'), only?.model ?? 'no model');
      assert.ok(only.cost > 0 && only.input_tokens > 0 && only.output_tokens > 0, JSON.stringify(only));
      assert.deepEqual(body.totals.cost, only.cost);
    });

    it("counts a failed-over request once, its attempts' costs all", async () => {
      const p = alice.principal;
      // As the ledger writes them: the first row starts the request; a release after an attempt,
      // never sent (no attempt), does not.
      for (const [attempt, provider, cost] of [
        [1, 'developer', 40],
        [2, 'cloud_b', 60],
        [null, 'cloud_c', 0],
      ] as const)
        await isolated.database.db
          .insertInto('usage')
          .values({
            token_jti: p.tokenId,
            user_id: p.userId,
            project_id: p.projectId,
            provider,
            model: 'gpt-a',
            reserved_micros: cost,
            cost_micros: cost,
            status: 'ok',
            created_at: '2026-03-05T10:00:00.000Z',
            request_id: 'failed-over',
            attempt,
            new_request: attempt === 1 ? 1 : 0,
          })
          .execute();
      const body = await ok('?since=2026-03-05&until=2026-03-05');
      assert.deepEqual([body.totals.requests, body.totals.cost], [1, 0.0001]);
      assert.deepEqual(
        body.data.map((entry) => [entry.provider, entry.requests, entry.cost]),
        [
          ['cloud_b', 0, 0.00006],
          ['cloud_c', 0, 0],
          ['developer', 1, 0.00004],
        ],
      );
    });

    it('reports a meter unknown today (image_input) in its group and the totals', async () => {
      const images = { input: 12, image_input: 258, output: 4 };
      await row(alice.principal, '2026-04-02T10:00:00.000Z', { cost: 30, meters: images });
      await row(alice.principal, '2026-04-02T11:00:00.000Z', { cost: 20 });
      const body = await ok('?since=2026-04-02&until=2026-04-02');
      assert.deepEqual(
        body.data.map((entry) => entry.meters),
        [{ input: 102, cached_input: 10, image_input: 258, output: 24 }],
      );
      assert.deepEqual(body.totals.meters, { input: 102, cached_input: 10, image_input: 258, output: 24 });
    });

    it('refuses a malformed or reversed period, or one over 366 days, with a 400', async () => {
      for (const [query, pattern] of [
        ['?since=2026-02-30', /since must be a UTC date \(YYYY-MM-DD\) or an ISO timestamp.*'2026-02-30'/],
        ['?since=yesterday', /since must be a UTC date/],
        ['?until=2026-01-10T25:00Z', /until must be a UTC date/],
        ['?since=2026-01-11&until=2026-01-10', /since \(2026-01-11\) is after until \(2026-01-10\)/],
        ['?since=2025-01-01&until=2026-01-10', /longer than 366 days/],
        ['?since=2999-01-01', /is after until/],
      ] as const) {
        const response = await usage(query);
        assert.equal(response.status, 400, `${query}: ${response.body}`);
        const error = errorOf(response.body);
        assert.equal(error.code, 'invalid_request', query);
        assert.match(error.message, pattern, query);
      }
      assert.equal((await usage('?token=all')).status, 400, 'token takes only current');
    });

    it('refuses a missing or revoked token with a 401', async () => {
      assert.equal((await app.inject({ url: '/v1/account/usage' })).statusCode, 401);
      await revokeToken(isolated.database.db, aliceSecondJti);
      const keys = await loadSigningKeys(signingKeyLocation(config.dataDir, config.access.signingKeyPath));
      const policy = { defaultTtl: config.access.tokenTtl, maxTtl: config.access.tokenMaxTtl };
      const issued = await issueToken(isolated.database.db, keys, policy, {
        email: 'bob@example.com',
        slug: 'team',
      });
      await revokeToken(isolated.database.db, issued.jti);
      const response = await usage('', issued.token);
      assert.equal(response.status, 401, response.body);
      assert.match(errorOf(response.body).message, /revoked/);
    });
  });
}

function times(n: number, figures: Record<string, number>): Record<string, number> {
  return Object.fromEntries(Object.entries(figures).map(([key, value]) => [key, value * n]));
}

describe('GET /v1/account/usage in the OpenAPI document', () => {
  it('documents its query parameters and response', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'gw-account-usage-doc-'));
    const isolated = await isolatedDatabase<GatewayDatabase>('sqlite');
    const config = loadGatewayConfig({}, { overrides: { dataDir, logLevel: 'silent' } });
    const app = await buildApp(config, { database: isolated.database, defaultMetrics: false });
    try {
      const spec = (await app.inject({ url: '/openapi.json' })).json() as {
        paths: Record<string, Record<string, { parameters?: Array<{ name: string }>; responses: object }>>;
      };
      const operation = spec.paths['/v1/account/usage']?.get;
      assert.ok(operation, '/v1/account/usage is in the document');
      assert.deepEqual(operation.parameters?.map((p) => p.name).sort(), ['since', 'token', 'until']);
      const ok = JSON.stringify(operation.responses);
      for (const field of ['cached_input_tokens', 'meters', 'totals', '"400"', '"401"'])
        assert.ok(ok.includes(field), field);
    } finally {
      await app.close();
      await isolated.drop();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
