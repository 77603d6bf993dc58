import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type IsolatedDatabase, isolatedDatabase, testEngines } from '@app/db/testing.ts';
import { seedAccount } from '../access/testing.ts';
import { loadGatewayConfig } from '../config.ts';
import type { Principal } from '../contracts.ts';
import type { GatewayDatabase, StoredMeters } from '../db/schema.ts';
import { storedMeters } from '../db/usage-meters.ts';
import { ledgerStatements, metersJson, type UsageRow } from './batch-statements.ts';

const rowOf = (principal: Principal, i: number): UsageRow => [
  principal.tokenId,
  principal.userId,
  principal.projectId,
  'cloud_b',
  // Text a PostgreSQL array literal has to escape, and NULLs among values.
  i % 3 === 0 ? null : `m-{${i}}, "q" \\ ${'é'}`,
  i,
  2 * i,
  // A meter unknown today, and a name JSON and an array literal both have to escape.
  i === 0 ? '{}' : JSON.stringify({ input: i, image_input: 2 * i, 'a "b", {c}': 1 }),
  2 ** 40 + i,
  i,
  i % 2 === 0 ? 'ok' : 'error',
  i % 2 === 0 ? null : 'NULL',
  `2026-11-24T00:00:00.${String(i % 1000).padStart(3, '0')}Z`,
  '2026-11-24T00:00:01.000Z',
  i % 4 === 0 ? null : `session-${i}`,
  i % 5 === 0 ? null : `req-${i}`,
  i % 5 === 0 ? null : 1 + (i % 3),
  i % 2 === 0 ? 'high' : null,
  i % 2 === 0 ? 'flex' : null,
  i % 5 === 0 || i % 3 === 0 ? 1 : 0,
  i % 7 === 0 ? null : 10 * i,
  i % 2 === 0 ? null : 5 * i,
  i % 2 === 0 ? 'ok' : 'rate_limited',
  i % 2 === 0 ? null : 429,
];

describe('meters as a row stores them', () => {
  it('keeps whole positive quantities, rounds fractions, leaves out nothing and nonsense', () => {
    assert.equal(metersJson({ input: 812, output: 96 }), '{"input":812,"output":96}');
    assert.equal(
      metersJson({ input: 1.6, output: 0, cached_input: -1, image_input: 3, reasoning: Number.NaN }),
      '{"input":2,"image_input":3}',
    );
    assert.equal(metersJson(undefined), '{}');
  });
});

describe('batch statements on sqlite', () => {
  it('slices a batch into power-of-two INSERTs, reusing the same texts', () => {
    const statements = ledgerStatements('sqlite');
    const principal = { tokenId: 't', userId: 1, projectId: 1 } as Principal;
    const rows = Array.from({ length: 300 }, (_, i) => rowOf(principal, i));
    const inserts = statements.insertUsage(rows);
    assert.deepEqual(
      inserts.map((q) => q.parameters.length / 24),
      [256, 32, 8, 4],
    );
    assert.equal(statements.insertUsage(rows.slice(0, 4))[0]?.sql, inserts[3]?.sql);
    assert.deepEqual(statements.insertUsage([]), []);
  });
});

for (const { engine, skip } of testEngines()) {
  describe(`batch statements on ${engine}`, { skip }, () => {
    let isolated: IsolatedDatabase<GatewayDatabase>;
    let dataDir: string;
    before(async () => {
      isolated = await isolatedDatabase<GatewayDatabase>(engine);
      dataDir = mkdtempSync(join(tmpdir(), 'gw-batch-'));
    });
    after(async () => {
      await isolated.drop();
      rmSync(dataDir, { recursive: true, force: true });
    });

    it('writes every value of every row as the query builder would', async () => {
      const config = loadGatewayConfig({}, { overrides: { dataDir } });
      const { principal } = await seedAccount(isolated.database, {
        email: 'batch@example.com',
        projectSlug: 'batch',
        allocations: { cloud_b: 1 },
        config,
      });
      const rows = Array.from({ length: 300 }, (_, i) => rowOf(principal, i));
      const { db } = isolated.database;
      await db.transaction().execute(async (trx) => {
        for (const insert of ledgerStatements(engine).insertUsage(rows)) await trx.executeQuery(insert);
      });
      // The columns in UsageRow's order, written out here rather than taken from the statement
      // builder's list: with that list, two columns swapped there would be read back swapped too.
      const stored = await db
        .selectFrom('usage')
        .select([
          'token_jti',
          'user_id',
          'project_id',
          'provider',
          'model',
          'prompt_tokens',
          'completion_tokens',
          'meters',
          'reserved_micros',
          'cost_micros',
          'status',
          'reason',
          'created_at',
          'settled_at',
          'session_id',
          'request_id',
          'attempt',
          'effort',
          'tier',
          'new_request',
          'latency_ms',
          'first_token_ms',
          'outcome',
          'http_status',
        ])
        .orderBy('prompt_tokens')
        .execute();
      // The meters compared as objects: PostgreSQL's jsonb keeps its own key order.
      const METERS_AT = 7;
      const asRead = (values: readonly unknown[]) =>
        values.map((value, i) => (i === METERS_AT ? storedMeters(value as StoredMeters) : value));
      assert.deepEqual(
        stored.map((row) =>
          asRead(Object.values(row).map((value) => (typeof value === 'bigint' ? Number(value) : value))),
        ),
        rows.map(asRead),
      );
    });
  });
}
