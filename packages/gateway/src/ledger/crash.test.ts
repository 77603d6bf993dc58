import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { after, before, describe, it } from 'node:test';
import { type IsolatedDatabase, isolatedDatabase, testEngines } from '@app/db/testing.ts';
import pino from 'pino';
import { seedAccount } from '../access/testing.ts';
import { loadGatewayConfig } from '../config.ts';
import type { GatewayDatabase } from '../db/schema.ts';
import { createLedger } from './ledger.ts';

const CHILD = join(import.meta.dirname, 'crash-child.ts');
const FLUSH_MS = 500;
const LEASE_TTL_MS = 2_000;

interface ChildReport {
  /** Costs settled more than one flush interval before the kill. */
  readonly committed: number;
  /** Costs settled just before the kill, still waiting for their group commit. */
  readonly unflushed: number;
  /** Reservations open at the kill. */
  readonly inFlight: number;
}

/** Runs crash-child.ts until it reports, then kills it with SIGKILL (no shutdown code runs). */
async function runAndKill(input: Record<string, unknown>): Promise<ChildReport> {
  const child = spawn(process.execPath, [CHILD, JSON.stringify(input)], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exited = new Promise((resolve) => child.once('exit', (_code, signal) => resolve(signal)));
  try {
    for await (const line of createInterface({ input: child.stdout })) return JSON.parse(line) as ChildReport;
    throw new Error('the child exited without reporting');
  } finally {
    child.kill('SIGKILL');
    assert.equal(await exited, 'SIGKILL');
  }
}

for (const { engine, skip } of testEngines()) {
  describe(`an instance killed with SIGKILL on ${engine}`, { skip }, () => {
    let isolated: IsolatedDatabase<GatewayDatabase>;
    let dataDir: string;
    before(async () => {
      isolated = await isolatedDatabase<GatewayDatabase>(engine);
      dataDir = mkdtempSync(join(tmpdir(), 'gw-crash-'));
    });
    after(async () => {
      await isolated.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('loses at most its last flush interval of rows; its lease expires and shows what was lost at most', async () => {
      const config = loadGatewayConfig({}, { overrides: { dataDir } });
      const { principal } = await seedAccount(isolated.database, {
        email: 'crash@example.com',
        projectSlug: 'crash',
        allocations: { cloud_b: 10 },
        config,
      });
      const report = await runAndKill({
        url: isolated.url,
        schema: isolated.schema,
        principal,
        flushMs: FLUSH_MS,
        leaseTtlMs: LEASE_TTL_MS,
      });
      const db = isolated.database.db;
      const bucket = () =>
        db
          .selectFrom('allocations')
          .select(['spent_micros', 'reserved_micros'])
          .where('project_id', '=', principal.projectId)
          .executeTakeFirstOrThrow();
      const rows = await db.selectFrom('usage').select('cost_micros').execute();
      assert.equal(rows.length, 5, 'the rows settled more than one flush interval before the kill are in');
      assert.equal((await bucket()).spent_micros, report.committed);
      const survivor = createLedger({
        db,
        log: pino({ level: 'silent' }),
        options: { leaseTtlMs: LEASE_TTL_MS },
      });
      try {
        assert.equal(await survivor.expireLeases(), 0, 'the dead instance renewed its lease recently');
        // The survivor's own upkeep (every third of the TTL) finds the lease once it is stale.
        const leaseRow = () => db.selectFrom('budget_leases').selectAll().executeTakeFirstOrThrow();
        for (let i = 0; i < 200 && (await leaseRow()).closed_as === null; i++)
          await new Promise((resolve) => setTimeout(resolve, 50));
        const lease = await leaseRow();
        assert.equal(lease.closed_as, 'expired', 'the lease expires once it is not renewed for its TTL');
        const lost = report.unflushed + report.inFlight;
        assert.equal(
          lease.amount_micros,
          lease.leased_micros - report.committed,
          'all it held, unused part included',
        );
        assert.ok(
          lost <= lease.amount_micros,
          `lost ${lost} within the expired lease ${lease.amount_micros}`,
        );
        assert.deepEqual(
          { ...(await bucket()) },
          { spent_micros: report.committed, reserved_micros: 0 },
          'the expired lease is back in the bucket',
        );
        const remaining = (await survivor.balances(principal.projectId)).cloud_b?.remainingMicros;
        assert.equal(remaining, 10_000_000 - report.committed);
      } finally {
        await survivor.close();
      }
    });
  });
}
