import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type Database, type Engine, openDatabase } from '@app/db';
import { type IsolatedDatabase, isolatedDatabase, testEngines } from '@app/db/testing.ts';
import { isAppError } from '@app/http-kit';
import pino from 'pino';
import { loadGatewayConfig } from '../config.ts';
import type { Principal } from '../contracts.ts';
import type { GatewayDatabase } from '../db/schema.ts';
import { type Access, createAccess } from '../access/index.ts';
import { createLedger } from './ledger.ts';
import { seedAccount } from '../access/testing.ts';

const log = pino({ level: 'silent' });
const usage = (costMicros: number) =>
  ({
    model: 'm-1',
    promptTokens: 10,
    completionTokens: 5,
    meters: { input: 10, output: 5 },
    costMicros,
    status: 'ok',
  }) as const;

async function rejectsExhausted(promise: Promise<unknown>) {
  await assert.rejects(promise, (error) => {
    assert.ok(isAppError(error));
    assert.equal(error.code, 'gateway_allocation_exhausted');
    assert.equal(error.status, 402);
    return true;
  });
}

async function seed(database: Database<GatewayDatabase>, dataDir: string, slug: string, usd: number) {
  const config = loadGatewayConfig({}, { overrides: { dataDir } });
  return (
    await seedAccount(database, {
      email: `${slug}@example.com`,
      projectSlug: slug,
      allocations: { cloud_b: usd },
      config,
    })
  ).principal;
}

for (const { engine, skip } of testEngines()) {
  describe(`ledger on ${engine}`, { skip }, () => {
    let isolated: IsolatedDatabase<GatewayDatabase>;
    let dataDir: string;
    before(async () => {
      isolated = await isolatedDatabase<GatewayDatabase>(engine);
      dataDir = mkdtempSync(join(tmpdir(), 'gw-ledger-'));
    });
    after(async () => {
      await isolated.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('reserves, settles to the real cost, releases, and writes one ledger row per request', async () => {
      const ledger = createLedger({ db: isolated.database.db, log });
      const principal = await seed(isolated.database, dataDir, 'basic', 1);
      const a = await ledger.reserve({ principal, provider: 'cloud_b', estimateMicros: 300_000 });
      const b = await ledger.reserve({ principal, provider: 'cloud_b', estimateMicros: 200_000.4 });
      assert.equal(b.amountMicros, 200_001, 'estimates round up to whole micros');
      assert.deepEqual((await ledger.balances(principal.projectId)).cloud_b, {
        allocatedMicros: 1_000_000,
        spentMicros: 0,
        reservedMicros: 500_001,
        remainingMicros: 499_999,
      });
      await ledger.settle(a, usage(120_000));
      await ledger.release(b, 'upstream refused the connection');
      await ledger.settle(a, usage(999_999));
      await ledger.release(a, 'late duplicate');
      const bucket = (await ledger.balances(principal.projectId)).cloud_b;
      assert.deepEqual(bucket, {
        allocatedMicros: 1_000_000,
        spentMicros: 120_000,
        reservedMicros: 0,
        remainingMicros: 880_000,
      });
      const rows = await isolated.database.db
        .selectFrom('usage')
        .select(['status', 'cost_micros', 'model', 'prompt_tokens', 'reason'])
        .where('project_id', '=', principal.projectId)
        .orderBy('id')
        .execute();
      assert.deepEqual(
        rows.map((row) => ({ ...row })),
        [
          { status: 'ok', cost_micros: 120_000, model: 'm-1', prompt_tokens: 10, reason: null },
          {
            status: 'error',
            cost_micros: 0,
            model: null,
            prompt_tokens: 0,
            reason: 'upstream refused the connection',
          },
        ],
      );
    });

    it('reserves what is left when the estimate is larger; refuses only an empty bucket or none', async () => {
      const ledger = createLedger({ db: isolated.database.db, log });
      const principal = await seed(isolated.database, dataDir, 'small', 0.1);
      await rejectsExhausted(ledger.reserve({ principal, provider: 'developer', estimateMicros: 1 }));
      const first = await ledger.reserve({ principal, provider: 'cloud_b', estimateMicros: 60_000 });
      assert.equal(first.amountMicros, 60_000);
      const rest = await ledger.reserve({ principal, provider: 'cloud_b', estimateMicros: 1_920_000 });
      assert.equal(rest.amountMicros, 40_000, 'the last 0.04 USD of the bucket, not the worst case');
      assert.equal((await ledger.balances(principal.projectId)).cloud_b?.remainingMicros, 0);
      await rejectsExhausted(ledger.reserve({ principal, provider: 'cloud_b', estimateMicros: 1 }));
      await rejectsExhausted(ledger.reserve({ principal, provider: 'cloud_b', estimateMicros: 0 }));
      await ledger.release(rest, 'test');
      const again = await ledger.reserve({ principal, provider: 'cloud_b', estimateMicros: 1_920_000 });
      assert.equal(again.amountMicros, 40_000, 'a release gives the money back');
      await ledger.release(again, 'test');
      await ledger.release(first, 'test');
    });

    it('never fails a settle above the estimate; the overshoot then blocks new reservations', async () => {
      const ledger = createLedger({ db: isolated.database.db, log });
      const principal = await seed(isolated.database, dataDir, 'over', 0.1);
      const r = await ledger.reserve({ principal, provider: 'cloud_b', estimateMicros: 90_000 });
      await ledger.settle(r, usage(130_000));
      const bucket = (await ledger.balances(principal.projectId)).cloud_b;
      assert.equal(bucket?.spentMicros, 130_000);
      assert.equal(bucket?.remainingMicros, 0);
      await rejectsExhausted(ledger.reserve({ principal, provider: 'cloud_b', estimateMicros: 1 }));
    });

    it('sweeps reserved rows left by a pre-lease gateway back into the bucket', async () => {
      const ledger = createLedger({ db: isolated.database.db, log });
      const principal = await seed(isolated.database, dataDir, 'legacy', 1);
      const db = isolated.database.db;
      const old = new Date(Date.now() - 120_000).toISOString();
      await db
        .updateTable('allocations')
        .set({ reserved_micros: 400_000 })
        .where('project_id', '=', principal.projectId)
        .execute();
      await db
        .insertInto('usage')
        .values({
          token_jti: principal.tokenId,
          user_id: principal.userId,
          project_id: principal.projectId,
          provider: 'cloud_b',
          reserved_micros: 400_000,
          status: 'reserved',
          created_at: old,
        })
        .execute();
      assert.equal(await ledger.sweepStale(600_000), 0, 'a fresh reservation is not stale');
      assert.equal(await ledger.sweepStale(60_000), 1);
      assert.equal(await ledger.sweepStale(60_000), 0, 'swept once');
      assert.equal((await ledger.balances(principal.projectId)).cloud_b?.reservedMicros, 0);
      await ledger.close();
    });

    concurrencyProof(engine, () => ({ isolated, dataDir }));
  });
}

/**
 * Two gateway instances (two createAccess, each with its own connection pool and its own
 * leases) on one database fire hundreds of reservations at a small budget at once. The bound
 * (docs/gateway/access.md): the grants add up to exactly the budget, all are whole estimates
 * but at most one partial reservation per instance (the last of its lease plus what was left
 * in the bucket), the rest are 402; after settling, spending exceeds the allocation by less
 * than one reservation per instance, and every row is in the ledger once it is flushed. On
 * SQLite both share the one connection: node:sqlite is synchronous, so a second connection in
 * the same process would block the event loop on the file lock held by the first.
 */
function concurrencyProof(
  engine: Engine,
  shared: () => { isolated: IsolatedDatabase<GatewayDatabase>; dataDir: string },
) {
  it('never overspends under concurrent reservations from two instances', async () => {
    const { isolated, dataDir } = shared();
    const principal: Principal = await seed(isolated.database, dataDir, 'race', 1);
    const second =
      engine === 'postgres'
        ? await openDatabase<GatewayDatabase>(
            isolated.url,
            isolated.schema ? { schema: isolated.schema } : {},
          )
        : isolated.database;
    const config = loadGatewayConfig({}, { overrides: { dataDir } });
    const instances: Access[] = [];
    try {
      for (const database of [isolated.database, second])
        instances.push(
          await createAccess({ config: config.access, dataDir, database, redis: undefined, log }),
        );
      const estimate = 7_000;
      const attempts = engine === 'postgres' ? 400 : 300;
      const results = await Promise.allSettled(
        Array.from({ length: attempts }, async (_, i) => {
          const instance = instances[i % 2] as Access;
          return {
            instance,
            reservation: await instance.ledger.reserve({
              principal,
              provider: 'cloud_b',
              estimateMicros: estimate,
            }),
          };
        }),
      );
      const granted = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
      for (const r of results)
        if (r.status === 'rejected')
          assert.equal((r.reason as { code?: string }).code, 'gateway_allocation_exhausted');
      const amounts = granted.map((g) => g.reservation.amountMicros);
      assert.equal(
        amounts.reduce((a, b) => a + b, 0),
        1_000_000,
        'the grants take exactly the budget',
      );
      const partial = granted.filter((g) => g.reservation.amountMicros < estimate);
      assert.ok(
        partial.length >= 1 && partial.length <= instances.length,
        `${partial.length} partial grants`,
      );
      for (const instance of instances)
        assert.ok(
          partial.filter((g) => g.instance === instance).length <= 1,
          'at most one partial per instance',
        );
      const whole = Math.floor(1_000_000 / estimate);
      assert.ok(granted.length >= whole + 1 && granted.length <= whole + instances.length);
      await Promise.all(granted.map((g) => g.instance.ledger.settle(g.reservation, usage(estimate))));
      const bucket = (await (instances[0] as Access).ledger.balances(principal.projectId)).cloud_b;
      assert.ok(bucket);
      assert.equal(bucket.reservedMicros, 0, 'settled costs used up every lease');
      assert.equal(bucket.spentMicros, granted.length * estimate);
      assert.ok(
        bucket.spentMicros > bucket.allocatedMicros,
        'settled at real cost, above the partial reservations',
      );
      assert.ok(
        bucket.spentMicros < bucket.allocatedMicros + instances.length * estimate,
        'overspend below one reservation per instance',
      );
      const rows = await isolated.database.db
        .selectFrom('usage')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('project_id', '=', principal.projectId)
        .executeTakeFirstOrThrow();
      assert.equal(Number(rows.n), granted.length, 'one ledger row per granted request, committed by settle');
      const leases = await isolated.database.db
        .selectFrom('budget_leases')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('project_id', '=', principal.projectId)
        .executeTakeFirstOrThrow();
      assert.ok(Number(leases.n) <= instances.length, 'one lease per instance, grown in place');
    } finally {
      for (const instance of instances) await instance.close();
      if (second !== isolated.database) await second.close();
    }
  });
}
