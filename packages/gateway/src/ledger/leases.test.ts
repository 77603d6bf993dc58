import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Database } from '@app/db';
import { type IsolatedDatabase, isolatedDatabase, testEngines } from '@app/db/testing.ts';
import { isAppError } from '@app/http-kit';
import type { CompiledQuery, Kysely, KyselyPlugin, Transaction } from 'kysely';
import pino from 'pino';
import { seedAccount } from '../access/testing.ts';
import { loadGatewayConfig } from '../config.ts';
import type { Principal, Reservation } from '../contracts.ts';
import type { GatewayDatabase } from '../db/schema.ts';
import { leaseAmount } from './lease-store.ts';
import { type BudgetLedger, createLedger, type LedgerOptions } from './ledger.ts';
import { member } from './testing.ts';

const log = pino({ level: 'silent' });
const usage = (costMicros: number) =>
  ({
    model: 'm-1',
    promptTokens: 1,
    completionTokens: 1,
    meters: { input: 1, output: 1 },
    costMicros,
    status: 'ok',
  }) as const;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * `db` seen through a spy that records, per transaction, the rows it inserted into `usage`;
 * while `failing` is above 0, each transaction fails (and counts it down) before it starts.
 */
function usageBatches(db: Kysely<GatewayDatabase>) {
  const batches: number[] = [];
  const control = { failing: 0 };
  const counting = (trx: Transaction<GatewayDatabase>, count: (rows: number) => void) =>
    new Proxy(trx, {
      get: (target, key) =>
        key !== 'executeQuery'
          ? member(target, key)
          : async (query: CompiledQuery) => {
              const result = await target.executeQuery(query);
              if (query.sql.startsWith('insert into usage ')) count(Number(result.numAffectedRows ?? 0n));
              return result;
            },
    });
  const spied = new Proxy(db, {
    get: (target, key) =>
      key !== 'transaction'
        ? member(target, key)
        : () => ({
            execute: async <T>(work: (trx: Transaction<GatewayDatabase>) => Promise<T>) => {
              if (control.failing > 0 && control.failing--) throw new Error('the database is unavailable');
              let rows = 0;
              const result = await target
                .transaction()
                .execute((trx) => work(counting(trx, (n) => (rows += n))));
              if (rows > 0) batches.push(rows);
              return result;
            },
          }),
  });
  return { db: spied, batches, control };
}

describe('lease size', () => {
  it('is a chunk, an eighth of what is left near the end, what waiting requests lack, never more than left', () => {
    assert.equal(leaseAmount(7_000, 100_000_000, 1_000_000), 1_000_000, 'the chunk');
    assert.equal(leaseAmount(7_000, 1_000_000, 1_000_000), 125_000, 'an eighth of what is left');
    assert.equal(leaseAmount(2_000_000, 100_000_000, 1_000_000), 2_000_000, 'what the waiting requests lack');
    assert.equal(leaseAmount(7_000, 5_000, 1_000_000), 5_000, 'never more than is left');
    assert.equal(leaseAmount(7_000, 100_000_000, 0), 7_000, 'chunk 0: request-sized leases');
    assert.equal(leaseAmount(7_000, 0, 1_000_000), 0);
  });
});

async function rejectsExhausted(promise: Promise<unknown>) {
  await assert.rejects(
    promise,
    (error) => isAppError(error) && error.code === 'gateway_allocation_exhausted',
  );
}

for (const { engine, skip } of testEngines()) {
  describe(`budget leases on ${engine}`, { skip }, () => {
    let isolated: IsolatedDatabase<GatewayDatabase>;
    let dataDir: string;
    const ledgers: BudgetLedger[] = [];
    before(async () => {
      isolated = await isolatedDatabase<GatewayDatabase>(engine);
      dataDir = mkdtempSync(join(tmpdir(), 'gw-leases-'));
    });
    after(async () => {
      for (const ledger of ledgers) await ledger.close();
      await isolated.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });
    const ledger = (
      options: Partial<LedgerOptions> = {},
      database: Database<GatewayDatabase> = isolated.database,
    ) => {
      const created = createLedger({ db: database.db, log, options });
      ledgers.push(created);
      return created;
    };
    async function seed(slug: string, usd: number): Promise<Principal> {
      const config = loadGatewayConfig({}, { overrides: { dataDir } });
      const seeded = await seedAccount(isolated.database, {
        email: `${slug}@example.com`,
        projectSlug: slug,
        allocations: { cloud_b: usd },
        config,
      });
      return seeded.principal;
    }
    /** What `gatewayctl allocations set` writes. */
    const setAllocated = (principal: Principal, micros: number) =>
      isolated.database.db
        .updateTable('allocations')
        .set({ allocated_micros: micros })
        .where('project_id', '=', principal.projectId)
        .execute();
    const dbBucket = (principal: Principal) =>
      isolated.database.db
        .selectFrom('allocations')
        .select(['spent_micros', 'reserved_micros'])
        .where('project_id', '=', principal.projectId)
        .executeTakeFirstOrThrow();
    const leasesOf = async (principal: Principal) =>
      (
        await isolated.database.db
          .selectFrom('budget_leases')
          .select(['amount_micros', 'leased_micros', 'closed_as'])
          .where('project_id', '=', principal.projectId)
          .orderBy('id')
          .execute()
      ).map((row) => ({ ...row }));
    const rowCount = async (principal: Principal) =>
      Number(
        (
          await isolated.database.db
            .selectFrom('usage')
            .select((eb) => eb.fn.countAll<number>().as('n'))
            .where('project_id', '=', principal.projectId)
            .executeTakeFirstOrThrow()
        ).n,
      );

    it('serves many requests from one lease write of one chunk', async () => {
      const principal = await seed('chunk', 100);
      const l = ledger({ chunkMicros: 1_000_000, flushMs: 0 });
      for (let i = 0; i < 200; i++) {
        const r = await l.reserve({ principal, provider: 'cloud_b', estimateMicros: 1_000 });
        await l.settle(r, usage(1_000));
      }
      assert.deepEqual(await leasesOf(principal), [
        { amount_micros: 800_000, leased_micros: 1_000_000, closed_as: null },
      ]);
      assert.deepEqual(
        { ...(await dbBucket(principal)) },
        { spent_micros: 200_000, reserved_micros: 800_000 },
      );
      assert.equal(await rowCount(principal), 200);
      const view = (await l.balances(principal.projectId)).cloud_b;
      assert.equal(view?.reservedMicros, 0, 'the unused lease is not shown as reserved by its own instance');
      assert.equal(view?.remainingMicros, 99_800_000);
    });

    it('shrinks leases near the end of a bucket, so its last micro-dollars are all spent', async () => {
      const principal = await seed('small', 0.1);
      const [a, b] = [ledger(), ledger()];
      const held = [
        { ledger: a, r: await a.reserve({ principal, provider: 'cloud_b', estimateMicros: 1_000 }) },
        { ledger: b, r: await b.reserve({ principal, provider: 'cloud_b', estimateMicros: 1_000 }) },
      ];
      assert.deepEqual(
        (await leasesOf(principal)).map((lease) => lease.leased_micros),
        [12_500, 10_937],
        'an eighth of what was left each time, not the $1 chunk',
      );
      let granted = 2_000;
      for (const instance of [a, b, a, b]) {
        for (;;) {
          const r = await instance
            .reserve({ principal, provider: 'cloud_b', estimateMicros: 1_000 })
            .catch(() => undefined);
          if (!r) break;
          granted += r.amountMicros;
          held.push({ ledger: instance, r });
        }
      }
      assert.equal(
        granted,
        100_000,
        'every micro-dollar of the bucket was reserved by one instance or the other',
      );
      await rejectsExhausted(a.reserve({ principal, provider: 'cloud_b', estimateMicros: 1 }));
      await rejectsExhausted(b.reserve({ principal, provider: 'cloud_b', estimateMicros: 1 }));
      await Promise.all(held.map((h) => h.ledger.release(h.r, 'test')));
    });

    it('refuses with 402 when no instance can lease; a lease returned at shutdown serves the others', async () => {
      const principal = await seed('exhaust', 0.05);
      const [a, b] = [ledger(), ledger({ allocationCheckMs: 30 })];
      const big = await a.reserve({ principal, provider: 'cloud_b', estimateMicros: 50_000 });
      await rejectsExhausted(b.reserve({ principal, provider: 'cloud_b', estimateMicros: 1 }));
      const pending = a.settle(big, usage(10_000));
      assert.equal((await a.balances(principal.projectId)).cloud_b?.remainingMicros, 40_000);
      assert.equal(
        (await b.balances(principal.projectId)).cloud_b?.remainingMicros,
        0,
        'what a holds is reserved for b',
      );
      await rejectsExhausted(b.reserve({ principal, provider: 'cloud_b', estimateMicros: 1 }));
      await pending;
      await a.close();
      assert.deepEqual(await leasesOf(principal), [
        { amount_micros: 40_000, leased_micros: 50_000, closed_as: 'returned' },
      ]);
      // b remembers that the bucket had nothing to lease; its next allocation check sees the
      // amount a returned, and b leases it.
      let r: Reservation | undefined;
      for (let i = 0; i < 250 && !r; i++) {
        r = await b
          .reserve({ principal, provider: 'cloud_b', estimateMicros: 60_000 })
          .catch(() => undefined);
        if (!r) await sleep(20);
      }
      assert.equal(r?.amountMicros, 40_000);
      if (r) await b.release(r, 'test');
    });

    it('gives back the unused part of a lease once its allocation is lowered', async () => {
      const principal = await seed('lowered', 10);
      const l = ledger({ allocationCheckMs: 30 });
      const r = await l.reserve({ principal, provider: 'cloud_b', estimateMicros: 1_000 });
      await l.settle(r, usage(600));
      assert.equal((await dbBucket(principal)).reserved_micros, 1_000_000 - 600, 'a $1 lease, $0.0006 spent');
      await setAllocated(principal, 100_600);
      for (let i = 0; i < 100 && (await dbBucket(principal)).reserved_micros > 100_000; i++) await sleep(20);
      assert.equal(
        (await dbBucket(principal)).reserved_micros,
        100_000,
        'what the bucket cannot cover went back',
      );
      const rest = await l.reserve({ principal, provider: 'cloud_b', estimateMicros: 500_000 });
      assert.equal(rest.amountMicros, 100_000, 'the lowered allocation is what can be reserved');
      await l.release(rest, 'test');
    });

    it('gives back a lowered allocation once when a check outlasts its interval', async () => {
      const principal = await seed('slow-check', 10);
      // Every query of this ledger takes longer than the 30 ms between its checks, as on a loaded
      // database: two checks in flight would both read the same shortfall and both give it back.
      const slowed: KyselyPlugin = {
        transformQuery: (args) => args.node,
        transformResult: async (args) => {
          await sleep(80);
          return args.result;
        },
      };
      const l = ledger(
        { allocationCheckMs: 30 },
        { ...isolated.database, db: isolated.database.db.withPlugin(slowed) },
      );
      const r = await l.reserve({ principal, provider: 'cloud_b', estimateMicros: 1_000 });
      await l.settle(r, usage(600));
      await setAllocated(principal, 100_600);
      for (let i = 0; i < 200 && (await dbBucket(principal)).reserved_micros > 100_000; i++) await sleep(20);
      await sleep(400);
      assert.equal((await dbBucket(principal)).reserved_micros, 100_000, 'the shortfall went back once');
    });

    it('graceful shutdown commits every waiting row and returns every lease', async () => {
      const principal = await seed('shutdown', 10);
      const l = ledger({ flushMs: 60_000 });
      const reservations = await Promise.all(
        Array.from({ length: 5 }, () =>
          l.reserve({ principal, provider: 'cloud_b', estimateMicros: 20_000 }),
        ),
      );
      const ends = reservations.map((r, i) =>
        i < 3 ? l.settle(r, usage(3_000 * (i + 1))) : l.release(r, 'test'),
      );
      assert.equal(await rowCount(principal), 0, 'the rows wait for the flush interval');
      const view = (await l.balances(principal.projectId)).cloud_b;
      assert.equal(
        view?.spentMicros,
        18_000,
        'the account view counts settled costs before they are committed',
      );
      await l.close();
      await Promise.all(ends);
      assert.equal(await rowCount(principal), 5);
      assert.deepEqual({ ...(await dbBucket(principal)) }, { spent_micros: 18_000, reserved_micros: 0 });
      assert.deepEqual(
        (await leasesOf(principal)).map((lease) => lease.closed_as),
        ['returned'],
      );
    });

    it('returns a lease left unused for one TTL', async () => {
      const principal = await seed('idle', 1);
      const l = ledger({ leaseTtlMs: 150 });
      const r = await l.reserve({ principal, provider: 'cloud_b', estimateMicros: 1_000 });
      await l.settle(r, usage(500));
      assert.equal((await dbBucket(principal)).reserved_micros, 124_500);
      for (let i = 0; i < 100 && (await dbBucket(principal)).reserved_micros !== 0; i++) await sleep(20);
      assert.deepEqual({ ...(await dbBucket(principal)) }, { spent_micros: 500, reserved_micros: 0 });
      assert.equal((await leasesOf(principal))[0]?.closed_as, 'returned');
    });

    it('leases again at once what it returned idle from a bucket it had found dry', async () => {
      const principal = await seed('dry-idle', 0.05);
      // No allocation check during the test: only the return itself may end the memory.
      const l = ledger({ leaseTtlMs: 150, allocationCheckMs: 60_000 });
      const partial = await l.reserve({ principal, provider: 'cloud_b', estimateMicros: 60_000 });
      assert.equal(partial.amountMicros, 50_000, 'all of the bucket: it is dry now');
      await l.release(partial, 'test');
      for (let i = 0; i < 100 && (await dbBucket(principal)).reserved_micros !== 0; i++) await sleep(20);
      assert.equal((await leasesOf(principal))[0]?.closed_as, 'returned');
      const again = await l.reserve({ principal, provider: 'cloud_b', estimateMicros: 60_000 });
      assert.equal(again.amountMicros, 50_000);
      await l.release(again, 'test');
    });

    it('reads the balances of a project once for callers that ask while the read runs', async () => {
      const principal = await seed('burst', 10);
      let selects = 0;
      const counting: KyselyPlugin = {
        transformQuery: (args) => {
          if (args.node.kind === 'SelectQueryNode') selects++;
          return args.node;
        },
        transformResult: async (args) => args.result,
      };
      const l = ledger(
        { allocationCheckMs: 60_000, leaseTtlMs: 600_000 },
        { ...isolated.database, db: isolated.database.db.withPlugin(counting) },
      );
      // A burst of refusals: each 402 names what the project's buckets have left.
      const views = await Promise.all(Array.from({ length: 20 }, () => l.balances(principal.projectId)));
      assert.equal(selects, 1);
      assert.ok(views.every((view) => view.cloud_b?.remainingMicros === 10_000_000));
      await l.balances(principal.projectId);
      assert.equal(selects, 2, 'a caller after the read reads again');
    });

    it('group-commits: the rows of many requests in one transaction, a new one every flushRows rows', async () => {
      const principal = await seed('group', 10);
      const spy = usageBatches(isolated.database.db);
      const counted = { ...isolated.database, db: spy.db };
      const many = ledger({ flushMs: 50 }, counted);
      const all = await Promise.all(
        Array.from({ length: 60 }, () =>
          many.reserve({ principal, provider: 'cloud_b', estimateMicros: 1_000 }),
        ),
      );
      await Promise.all(all.map((r) => many.settle(r, usage(100))));
      assert.deepEqual(spy.batches, [60], 'sixty rows, one transaction');
      const capped = ledger({ flushMs: 50, flushRows: 25 }, counted);
      const more = await Promise.all(
        Array.from({ length: 60 }, () =>
          capped.reserve({ principal, provider: 'cloud_b', estimateMicros: 1_000 }),
        ),
      );
      await Promise.all(more.map((r) => capped.settle(r, usage(100))));
      assert.deepEqual(spy.batches, [60, 25, 25, 10], 'batches of at most 25 rows');
      assert.equal(await rowCount(principal), 120);
      assert.equal((await dbBucket(principal)).spent_micros, 12_000);
    });

    it('keeps the rows of a failed commit for the next one; abandons them only when shutdown cannot write', async () => {
      const principal = await seed('retry', 10);
      const spy = usageBatches(isolated.database.db);
      const flaky = ledger({ flushMs: 60_000 }, { ...isolated.database, db: spy.db });
      const outcomes: string[] = [];
      const settleAll = async (count: number) => {
        const reservations = await Promise.all(
          Array.from({ length: count }, () =>
            flaky.reserve({ principal, provider: 'cloud_b', estimateMicros: 1_000 }),
          ),
        );
        for (const r of reservations)
          flaky.settle(r, usage(100)).then(
            () => outcomes.push('committed'),
            () => outcomes.push('lost'),
          );
      };
      await settleAll(3);
      spy.control.failing = 1;
      await assert.rejects(flaky.flush(), /could not be written/);
      assert.equal(await rowCount(principal), 0);
      await flaky.flush();
      await sleep(0);
      assert.deepEqual(outcomes, ['committed', 'committed', 'committed']);
      assert.deepEqual(spy.batches, [3], 'the three rows once, in one transaction');
      assert.equal((await dbBucket(principal)).spent_micros, 300);
      await settleAll(2);
      spy.control.failing = 1_000;
      await flaky.close();
      spy.control.failing = 0;
      assert.deepEqual(outcomes.slice(3), ['lost', 'lost']);
      assert.equal(await rowCount(principal), 3);
    });
  });
}
