/** allBalances(): every bucket in one read, with the figures balances() gives project by project. */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type IsolatedDatabase, isolatedDatabase, testEngines } from '@app/db/testing.ts';
import pino from 'pino';
import { seedAccount } from '../access/testing.ts';
import { loadGatewayConfig } from '../config.ts';
import type { GatewayDatabase } from '../db/schema.ts';
import { createLedger } from './ledger.ts';

const log = pino({ level: 'silent' });

for (const { engine, skip } of testEngines()) {
  describe(`allBalances on ${engine}`, { skip }, () => {
    let isolated: IsolatedDatabase<GatewayDatabase>;
    let dataDir: string;
    before(async () => {
      isolated = await isolatedDatabase<GatewayDatabase>(engine);
      dataDir = mkdtempSync(join(tmpdir(), 'gw-all-balances-'));
    });
    after(async () => {
      await isolated.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it("lists every project's buckets with this instance's open and unsettled amounts folded in", async () => {
      const config = loadGatewayConfig({}, { overrides: { dataDir } });
      const seed = (slug: string, allocations: Record<string, number>) =>
        seedAccount(isolated.database, {
          email: `${slug}@example.com`,
          projectSlug: slug,
          allocations,
          config,
        });
      const { principal } = await seed('alpha', { cloud_b: 2, developer: 1 });
      const beta = (await seed('beta', { cloud_a: 3 })).principal;
      const ledger = createLedger({ db: isolated.database.db, log });
      after(() => ledger.close());
      const settled = await ledger.reserve({ principal, provider: 'cloud_b', estimateMicros: 300_000 });
      await ledger.settle(settled, {
        model: 'm-1',
        promptTokens: 10,
        completionTokens: 5,
        meters: { input: 10, output: 5 },
        costMicros: 120_000,
        status: 'ok',
      });
      const open = await ledger.reserve({ principal, provider: 'cloud_b', estimateMicros: 50_000 });
      const all = await ledger.allBalances();
      const byProject = (projectId: number) => ledger.balances(projectId);
      assert.deepEqual(
        all.map((row) => [row.projectSlug, row.provider, row.balance.remainingMicros]).sort(),
        [
          ['alpha', 'cloud_b', 2_000_000 - 120_000 - 50_000],
          ['alpha', 'developer', 1_000_000],
          ['beta', 'cloud_a', 3_000_000],
        ],
      );
      const alpha = await byProject(principal.projectId);
      const betaBalances = await byProject(beta.projectId);
      for (const row of all) {
        const expected = row.projectSlug === 'alpha' ? alpha[row.provider] : betaBalances[row.provider];
        assert.deepEqual(row.balance, expected, `${row.projectSlug}/${row.provider} as balances() says`);
      }
      await ledger.release(open, 'test');
    });
  });
}
