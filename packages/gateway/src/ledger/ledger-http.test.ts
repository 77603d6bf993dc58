import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Engine } from '@app/db';
import { type IsolatedDatabase, isolatedDatabase, testEngines } from '@app/db/testing.ts';
import type { App } from '@app/http-kit';
import { startSimulator } from '@app/upstream-simulator';
import type { Kysely } from 'kysely';
import { setAllocation } from '../access/admin.ts';
import { bearer } from '../access/test-app.ts';
import { seedAccount } from '../access/testing.ts';
import { buildApp } from '../app.ts';
import { type GatewayConfig, loadGatewayConfig } from '../config.ts';
import type { ProviderId } from '../contracts.ts';
import type { GatewayDatabase } from '../db/schema.ts';
import { countingTransactions, ledgersSettled } from './testing.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface AccountBucket {
  readonly provider: string;
  readonly spent: number;
  readonly reserved: number;
  readonly remaining: number;
}

interface LedgerApp {
  readonly app: App;
  readonly isolated: IsolatedDatabase<GatewayDatabase>;
  readonly token: string;
  readonly projectId: number;
  close(): Promise<void>;
}

/** A gateway in front of the simulator with one seeded project, on an isolated database. */
async function ledgerApp(options: {
  readonly engine: Engine;
  readonly slug: string;
  readonly allocations: Partial<Record<ProviderId, number>>;
  readonly access?: Partial<GatewayConfig['access']>;
  /** What the app sees of the database (a spy), instead of the database itself. */
  readonly watch?: (db: Kysely<GatewayDatabase>) => Kysely<GatewayDatabase>;
}): Promise<LedgerApp> {
  const dataDir = mkdtempSync(join(tmpdir(), `gw-ledger-${options.slug}-`));
  const sim = await startSimulator();
  const isolated = await isolatedDatabase<GatewayDatabase>(options.engine);
  const overrides = { dataDir, logLevel: 'silent', ...(options.access && { access: options.access }) };
  const config = loadGatewayConfig({}, { overrides });
  const db = options.watch ? options.watch(isolated.database.db) : isolated.database.db;
  const app = await buildApp(config, {
    database: { ...isolated.database, db },
    simulatorUrl: sim.url,
    env: sim.credentialEnv,
    defaultMetrics: false,
  });
  const seeded = await seedAccount(isolated.database, {
    email: `${options.slug}@example.com`,
    projectSlug: options.slug,
    allocations: options.allocations,
    config,
  });
  return {
    app,
    isolated,
    token: seeded.token,
    projectId: seeded.principal.projectId,
    close: async () => {
      await app.close();
      await sim.close();
      await isolated.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

describe('the leased ledger behind the HTTP API (embedded SQLite)', () => {
  let t: LedgerApp;
  before(async () => {
    // A flush interval far longer than the test: only the shutdown commits the row.
    const access = { ledgerFlushMs: 1000, ledgerChunkUsd: 2 };
    t = await ledgerApp({ engine: 'sqlite', slug: 'lease', allocations: { developer: 100 }, access });
  });
  after(() => t.close());

  const account = async () => {
    const response = await t.app.inject({ url: '/v1/account', headers: bearer(t.token) });
    assert.equal(response.statusCode, 200, response.body);
    const body = response.json() as { allocations: AccountBucket[] };
    return body.allocations.find((bucket) => bucket.provider === 'developer');
  };
  const stored = () =>
    t.isolated.database.db
      .selectFrom('allocations')
      .select(['spent_micros', 'reserved_micros'])
      .where('project_id', '=', t.projectId)
      .where('provider', '=', 'developer')
      .executeTakeFirstOrThrow();

  it('GET /v1/account counts a settled request before its row is committed; shutdown commits it and returns the lease', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: bearer(t.token),
      payload: { model: 'gpt-5.4@developer', messages: [{ role: 'user', content: 'hi' }], max_tokens: 50 },
    });
    assert.equal(response.statusCode, 200, response.body);
    let bucket = await account();
    for (let i = 0; i < 100 && bucket?.spent === 0; i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      bucket = await account();
    }
    assert.ok(bucket && bucket.spent > 0, 'the settled cost shows at once');
    assert.equal(bucket.reserved, 0, "this instance's unused lease is not reserved for its own requests");
    assert.equal(bucket.remaining, 100 - bucket.spent);
    assert.deepEqual(
      { ...(await stored()) },
      { spent_micros: 0, reserved_micros: 2_000_000 },
      'the $2 lease',
    );
    assert.equal((await t.isolated.database.db.selectFrom('usage').selectAll().execute()).length, 0);

    await t.app.close();
    assert.deepEqual(
      { ...(await stored()) },
      { spent_micros: Math.round(bucket.spent * 1_000_000), reserved_micros: 0 },
      'graceful shutdown committed the row and returned the lease',
    );
    const rows = await t.isolated.database.db.selectFrom('usage').select(['status', 'model']).execute();
    assert.deepEqual(
      rows.map((row) => row.status),
      ['ok'],
    );
  });
});

for (const { engine, skip } of testEngines()) {
  describe(`a bucket that cannot pay, behind the HTTP API on ${engine}`, { skip }, () => {
    let t: LedgerApp;
    let lease: ReturnType<typeof countingTransactions> | undefined;
    before(async () => {
      t = await ledgerApp({
        engine,
        slug: 'refused',
        allocations: { developer: 5, cloud_c: 3 },
        watch: (db) => (lease = countingTransactions(db)).db,
      });
    });
    after(() => t.close());

    const chat = (model: string) =>
      t.app.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: bearer(t.token),
        payload: { model, messages: [{ role: 'user', content: 'hi' }], max_tokens: 50 },
      });
    const allocate = (usd: number) =>
      setAllocation(t.isolated.database.db, { slug: 'refused', provider: 'developer', usd });
    const leasedOf = async () =>
      Number(
        (
          await t.isolated.database.db
            .selectFrom('allocations')
            .select('reserved_micros')
            .where('project_id', '=', t.projectId)
            .where('provider', '=', 'developer')
            .executeTakeFirstOrThrow()
        ).reserved_micros,
      );
    const transactions = () => lease?.counted.transactions ?? Number.NaN;

    it('refuses from memory (at most one lease write for twenty 402s), lets automatic selection move on, and leases again once the allocation is raised', async () => {
      const first = await chat('gpt-5.4');
      assert.equal(first.statusCode, 200, first.body);
      assert.match(String(first.headers['x-gateway-applied']), /provider=developer/, 'most budget: sticky');
      await allocate(0);
      // The instance's allocation check gives the unused lease back: nothing is left to lease.
      for (let i = 0; i < 250 && (await leasedOf()) > 0; i++) await sleep(20);
      assert.equal(await leasedOf(), 0);
      await ledgersSettled();

      const before = transactions();
      for (let i = 0; i < 20; i++) {
        const refused = await chat('gpt-5.4@developer');
        assert.equal(refused.statusCode, 402, refused.body);
        assert.equal(refused.json().error.code, 'gateway_allocation_exhausted');
      }
      const writes = transactions() - before;
      assert.ok(writes <= 1, `${writes} lease writes for 20 refusals`);

      const moved = await chat('gpt-5.4');
      assert.equal(moved.statusCode, 200, moved.body);
      assert.match(String(moved.headers['x-gateway-applied']), /provider=cloud_c/, 'the bucket with budget');

      await allocate(5);
      // Seen by the next allocation check (every second), on every instance.
      let served = await chat('gpt-5.4@developer');
      for (let i = 0; i < 100 && served.statusCode === 402; i++) {
        await sleep(50);
        served = await chat('gpt-5.4@developer');
      }
      assert.equal(served.statusCode, 200, served.body);
    });
  });
}

for (const { engine, skip } of testEngines()) {
  describe(`the agent session on each ledger row on ${engine}`, { skip }, () => {
    let t: LedgerApp;
    before(async () => {
      t = await ledgerApp({ engine, slug: 'sessions', allocations: { developer: 5, cloud_c: 3 } });
    });
    after(() => t.close());

    const chat = (headers: Record<string, string>, extra: Record<string, unknown> = {}) =>
      t.app.inject({
        method: 'POST',
        url: '/v1/chat/completions',
        headers: { ...bearer(t.token), ...headers },
        payload: { model: 'gpt-5.4', messages: [{ role: 'user', content: 'hi' }], max_tokens: 50, ...extra },
      });

    it('charged, failed-over and session-less rows', async () => {
      const session = '4f1c2a9e-0d7b-4c1e-9b7a-2f0e8d6c5b41';
      assert.equal((await chat({ 'x-claude-code-session-id': session })).statusCode, 200);
      // Every provider fails: one error row per attempt, each with the session.
      const failed = await chat({ 'session-id': 'codex-1' }, { x_simulator: { fail_status: 500 } });
      assert.equal(failed.statusCode, 502, failed.body);
      assert.equal((await chat({})).statusCode, 200);
      await ledgersSettled();
      const rows = await t.isolated.database.db
        .selectFrom('usage')
        .select(['status', 'session_id'])
        .orderBy('id')
        .execute();
      assert.deepEqual(
        rows.map((row) => [row.status, row.session_id]),
        [['ok', session], ...rows.slice(1, -1).map(() => ['error', 'codex-1']), ['ok', null]],
      );
      assert.ok(rows.length >= 4, 'the failed request tried more than one provider');
    });
  });
}

describe('ledger configuration', () => {
  it('is read from GATEWAY_LEDGER_* and refused with the variable named when invalid', () => {
    const config = loadGatewayConfig({
      GATEWAY_LEDGER_CHUNK_USD: '2.5',
      GATEWAY_LEDGER_LEASE_TTL_MS: '10000',
      GATEWAY_LEDGER_FLUSH_MS: '50',
      GATEWAY_LEDGER_FLUSH_ROWS: '100',
    });
    assert.equal(config.access.ledgerChunkUsd, 2.5);
    assert.equal(config.access.ledgerLeaseTtlMs, 10_000);
    assert.equal(config.access.ledgerFlushMs, 50);
    assert.equal(config.access.ledgerFlushRows, 100);
    assert.throws(() => loadGatewayConfig({ GATEWAY_LEDGER_FLUSH_MS: '5000' }), /GATEWAY_LEDGER_FLUSH_MS/);
    assert.throws(() => loadGatewayConfig({ GATEWAY_LEDGER_CHUNK_USD: '-1' }), /GATEWAY_LEDGER_CHUNK_USD/);
  });
});
