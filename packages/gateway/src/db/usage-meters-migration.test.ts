/**
 * 0010_usage_meters on a ledger written at the schema before it (0009), on both engines: each
 * row's meters are its old columns as disjoint meters (expectedMeters), the totals per project, provider
 * and meter and the cost sums are unchanged, a request counts once, and down restores the columns.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { migrateToLatest } from '@app/db';
import { type IsolatedDatabase, isolatedDatabase, testEngines } from '@app/db/testing.ts';
import { meters } from '@app/provider-adapters/model/meters.ts';
import { type Generated, type Kysely, sql } from 'kysely';
import { usageRows } from '../access/usage-report.ts';
import { gatewayMigrations } from './migrations.ts';
import type { GatewayDatabase, UsageTable } from './schema.ts';
import { addMeters, groupKey, meterTotals, storedMeters } from './usage-meters.ts';

type Usage0009 = Omit<UsageTable, 'meters' | 'new_request'> &
  Record<'cached_tokens' | 'cache_write_tokens' | 'reasoning_tokens', Generated<number>>;
type Database0009 = Omit<GatewayDatabase, 'usage'> & { usage: Usage0009 };

const upTo0009 = Object.fromEntries(Object.entries(gatewayMigrations).filter(([name]) => name < '0010'));
const NOW = '2026-11-28T10:00:00.000Z';

/** prompt, cached, cache write, completion, reasoning, cost; then who and which request. */
type Old = readonly [number, number, number, number, number, number];
interface Row {
  readonly tokens: Old;
  readonly project: number;
  readonly provider: string;
  readonly requestId: string | null;
  readonly attempt: number | null;
  /** Whether reports must count the row as a request after 0010. */
  readonly counts: boolean;
}

const row = (tokens: Old, more: Partial<Omit<Row, 'tokens'>> = {}): Row => ({
  tokens,
  project: 1,
  provider: 'developer',
  requestId: null,
  attempt: null,
  counts: true,
  ...more,
});

const ROWS: readonly Row[] = [
  // Every kind at once, on a request's only attempt.
  row([1_000, 200, 100, 300, 50, 1_234], { requestId: 'all-kinds', attempt: 1 }),
  // A release: nothing but the row (and a row from before 0008: no request id, no attempt).
  row([0, 0, 0, 0, 0, 0]),
  // Figures an upstream got wrong (cached beyond the prompt): the disjoint-meter bounds apply.
  row([10, 20, 5, 8, 9, 77], { provider: 'cloud_b' }),
  // A whole prompt read from the cache; a generation that is all reasoning.
  row([500, 500, 0, 40, 40, 90], { provider: 'cloud_b', requestId: 'cached', attempt: 1 }),
  // Large counts: the JSON text is built from integers beyond what 32-bit sums would hold.
  row([2_000_000_000, 0, 1_999_999_999, 2_000_000_000, 0, 2 ** 40], { project: 2 }),
  // A failed-over request: its attempts, then a release never sent on the next provider.
  row([100, 0, 0, 0, 0, 0], { requestId: 'failover', attempt: 1 }),
  row([100, 10, 0, 20, 0, 300], { provider: 'cloud_c', requestId: 'failover', attempt: 2, counts: false }),
  row([0, 0, 0, 0, 0, 0], { provider: 'cloud_b', requestId: 'failover', counts: false }),
  // A request never sent at all: its one release is the request.
  row([0, 0, 0, 0, 0, 0], { provider: 'cloud_b', requestId: 'never-sent' }),
  // The same request id in another project is another request.
  row([7, 0, 0, 3, 0, 5], { project: 2, requestId: 'failover', attempt: 1 }),
];

/** An old row's totals as disjoint meters: cache figures inside the prompt, reasoning inside the output. */
const expectedMeters = ([prompt, cached, written, completion, reasoning]: Old) => {
  const read = Math.min(cached, prompt);
  const write = Math.min(written, prompt - read);
  const thought = Math.min(reasoning, completion);
  return meters({
    input: prompt - read - write,
    cached_input: read,
    cache_write_5m: write,
    output: completion - thought,
    reasoning: thought,
  });
};

async function seed(db: Kysely<Database0009>): Promise<void> {
  await db.insertInto('users').values({ email: 'u@example.com', is_admin: 0, created_at: NOW }).execute();
  for (const slug of ['one', 'two'])
    await db.insertInto('projects').values({ slug, ip_allow: '[]', created_at: NOW }).execute();
  for (const [i, r] of ROWS.entries()) {
    const [prompt, cached, written, completion, reasoning, cost] = r.tokens;
    await db
      .insertInto('usage')
      .values({
        token_jti: `jti-${i}`,
        user_id: 1,
        project_id: r.project,
        provider: r.provider,
        model: 'm-1',
        prompt_tokens: prompt,
        completion_tokens: completion,
        cached_tokens: cached,
        cache_write_tokens: written,
        reasoning_tokens: reasoning,
        reserved_micros: cost,
        cost_micros: cost,
        status: cost > 0 ? 'ok' : 'error',
        created_at: NOW,
        request_id: r.requestId,
        attempt: r.attempt,
      })
      .execute();
  }
}

/** Sums per project and provider that must not change: cost and the whole prompt and generation. */
const sums = (db: Kysely<unknown>) =>
  sql<Record<string, unknown>>`select project_id, provider, sum(cost_micros) as cost,
      sum(prompt_tokens) as prompt, sum(completion_tokens) as completion, count(*) as n
    from usage group by project_id, provider order by project_id, provider`
    .execute(db)
    .then((result) =>
      result.rows.map((r) => Object.values(r).map((v) => (typeof v === 'string' ? v : Number(v)))),
    );

for (const { engine, skip } of testEngines())
  describe(`migration 0010_usage_meters (${engine})`, { skip }, () => {
    let isolated: IsolatedDatabase<Database0009>;
    let before0010: unknown[][];
    const db = () => isolated.database.db as unknown as Kysely<GatewayDatabase>;
    before(async () => {
      isolated = await isolatedDatabase<Database0009>(engine);
      await migrateToLatest(isolated.database.db, upTo0009);
      await seed(isolated.database.db);
      before0010 = await sums(isolated.database.db as Kysely<unknown>);
      await migrateToLatest(isolated.database.db, gatewayMigrations);
    });
    after(() => isolated.drop());

    it('gives each row the disjoint meters of its old columns, and drops the kind columns', async () => {
      const rows = await db().selectFrom('usage').selectAll().orderBy('id').execute();
      assert.deepEqual(
        rows.map((r) => storedMeters(r.meters)),
        ROWS.map((r) => expectedMeters(r.tokens)),
      );
      assert.equal('cached_tokens' in (rows[0] ?? {}), false);
    });

    it('keeps the totals per project, provider and meter, and the cost sums', async () => {
      assert.deepEqual(await sums(db() as Kysely<unknown>), before0010);
      const totals = await meterTotals(
        db(),
        db().selectFrom('usage').select(['project_id', 'provider', 'meters']),
        ['project_id', 'provider'],
      );
      const expected = new Map<string, Record<string, number>>();
      for (const r of ROWS) {
        const key = groupKey([r.project, r.provider]);
        const meters = addMeters([expected.get(key) ?? {}, expectedMeters(r.tokens)]);
        if (Object.keys(meters).length > 0) expected.set(key, { ...meters });
      }
      assert.deepEqual(new Map([...totals].sort()), new Map([...expected].sort()));
    });

    it('counts each request once: later attempts and a release after one are not new requests', async () => {
      const flags = await db().selectFrom('usage').select('new_request').orderBy('id').execute();
      assert.deepEqual(
        flags.map((f) => Number(f.new_request) === 1),
        ROWS.map((r) => r.counts),
      );
      const [one] = await usageRows(db(), { projectId: 1, since: undefined, until: undefined }, []);
      assert.equal(one?.requests, ROWS.filter((r) => r.project === 1 && r.counts).length);
    });

    it('goes down to the kind columns again, from the meters, and up once more', async () => {
      const migration = gatewayMigrations['0010_usage_meters'];
      await migration?.down?.(db() as Kysely<unknown>);
      const old = await sql<Record<string, number | string>>`select prompt_tokens, cached_tokens,
          cache_write_tokens, completion_tokens, reasoning_tokens from usage order by id`.execute(db());
      const bounded = ROWS.map(({ tokens }) => {
        const m = expectedMeters(tokens);
        const [prompt, , , completion] = tokens;
        return [prompt, m.cached_input ?? 0, m.cache_write_5m ?? 0, completion, m.reasoning ?? 0];
      });
      assert.deepEqual(
        old.rows.map((r) => Object.values(r).map(Number)),
        bounded,
        'what the meters kept (the bounded figures)',
      );
      await migration?.up(db() as Kysely<unknown>);
      const rows = await db().selectFrom('usage').select('meters').orderBy('id').execute();
      assert.deepEqual(
        rows.map((r) => storedMeters(r.meters)),
        ROWS.map((r) => expectedMeters(r.tokens)),
      );
    });
  });
