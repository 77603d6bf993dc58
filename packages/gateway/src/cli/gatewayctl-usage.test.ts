/**
 * gatewayctl usage SLUG --since/--until/--by/--csv on both engines: the spend of a period read
 * from the usage ledger, grouped by day, model, token or user, as a table or CSV; wrong usage is
 * exit 2 before the database is opened, an unknown project exit 1.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { type IsolatedDatabase, isolatedDatabase, testEngines } from '@app/db/testing.ts';
import { issueToken } from '../access/admin.ts';
import { loadSigningKeys, signingKeyLocation } from '../access/keys.ts';
import { seedAccount } from '../access/testing.ts';
import { loadGatewayConfig } from '../config.ts';
import type { Principal } from '../contracts.ts';
import type { GatewayDatabase } from '../db/schema.ts';
import { main } from './gatewayctl.ts';

for (const { engine, skip } of testEngines()) {
  describe(`gatewayctl usage of a period on ${engine}`, { skip }, () => {
    let isolated: IsolatedDatabase<GatewayDatabase>;
    let dir: string;
    let env: NodeJS.ProcessEnv;
    let alice: Principal;
    let bob: Principal;
    let secondJti: string;

    const ctl = async (...args: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await main(args, env, { out: (l) => out.push(l), err: (l) => err.push(l) });
      return { code, stdout: out.join('\n'), stderr: err.join('\n') };
    };
    const ok = async (...args: string[]) => {
      const result = await ctl(...args);
      assert.equal(result.code, 0, `${args.join(' ')}: ${result.stderr}`);
      return result.stdout.split('\n');
    };
    const row = (
      who: Principal,
      at: string,
      more: {
        jti?: string;
        model?: string;
        cost: number;
        project?: number;
        meters?: object;
        attempt?: number;
      },
    ) =>
      isolated.database.db
        .insertInto('usage')
        .values({
          token_jti: more.jti ?? who.tokenId,
          user_id: who.userId,
          project_id: more.project ?? who.projectId,
          provider: more.model === 'b-1' ? 'cloud_b' : 'developer',
          model: more.model ?? 'gpt-a',
          prompt_tokens: 100,
          completion_tokens: 20,
          // 10 of the 100 prompt tokens read from the cache.
          meters: JSON.stringify(more.meters ?? { input: 90, cached_input: 10, output: 20 }),
          reserved_micros: more.cost,
          cost_micros: more.cost,
          status: 'ok',
          created_at: at,
          ...(more.attempt === undefined
            ? {}
            : { attempt: more.attempt, new_request: more.attempt === 1 ? 1 : 0 }),
        })
        .execute();

    before(async () => {
      dir = mkdtempSync(join(tmpdir(), 'gatewayctl-usage-'));
      isolated = await isolatedDatabase<GatewayDatabase>(engine);
      env = {
        GATEWAY_DATABASE_URL: isolated.url,
        ...(isolated.schema ? { GATEWAY_DATABASE_SCHEMA: isolated.schema } : {}),
        GATEWAY_DATA_DIR: dir,
      };
      const config = loadGatewayConfig(env);
      const seed = async (email: string, projectSlug: string) =>
        (await seedAccount(isolated.database, { email, projectSlug, allocations: { developer: 5 }, config }))
          .principal;
      alice = await seed('alice@example.com', 'team');
      bob = await seed('bob@example.com', 'team');
      const carol = await seed('carol@example.com', 'other');
      const dora = await seed('dora@example.com', 'imaging');
      const keys = await loadSigningKeys(signingKeyLocation(config.dataDir, config.access.signingKeyPath));
      const policy = { defaultTtl: config.access.tokenTtl, maxTtl: config.access.tokenMaxTtl };
      secondJti = (
        await issueToken(isolated.database.db, keys, policy, { email: 'alice@example.com', slug: 'team' })
      ).jti;
      await row(alice, '2026-01-09T23:59:59.999Z', { cost: 1 });
      await row(alice, '2026-01-10T08:00:00.000Z', { cost: 1_500 });
      await row(bob, '2026-01-10T12:00:00.000Z', { cost: 2_000_000 });
      await row(alice, '2026-01-11T00:00:00.000Z', { jti: secondJti, model: 'b-1', cost: 250 });
      await row(alice, '2026-01-12T00:00:00.000Z', { cost: 7 });
      await row(carol, '2026-01-10T09:00:00.000Z', { model: '=x,"y"', cost: 5 });
      await row(dora, '2026-01-10T09:00:00.000Z', { cost: 1, meters: { input: 1 }, attempt: 1 });
      // The same request's second attempt (a failover): not a second request.
      await row(dora, '2026-01-10T09:00:00.000Z', {
        cost: 9,
        meters: { input: 4, image_input: 300, output: 2 },
        attempt: 2,
      });
    });
    after(async () => {
      await isolated.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    const JAN_10_11 = ['--since', '2026-01-10', '--until', '2026-01-11'];

    it('keeps the allocation table without period options, and prints it as CSV with --csv', async () => {
      const [header, developer] = await ok('usage', 'team');
      assert.match(
        header ?? '',
        /^PROVIDER\s+ALLOCATED\s+SPENT\s+RESERVED\s+REMAINING\s+REQUESTS\s+TOKENS IN\s+TOKENS OUT\s+INPUT\s+CACHED_INPUT\s+OUTPUT$/,
      );
      assert.match(
        developer ?? '',
        /^developer\s+\$5\.00\s+\$0\.00\s+\$0\.00\s+\$5\.00\s+4\s+400\s+80\s+360\s+40\s+80$/,
      );
      assert.deepEqual(await ok('usage', 'team', '--csv'), [
        'provider,allocated_usd,spent_usd,reserved_usd,remaining_usd,requests,input_tokens,output_tokens,input,cached_input,output',
        'developer,5.00,0.00,0.00,5.00,4,400,80,360,40,80',
      ]);
    });

    it('groups a period by day (the default), with a total line', async () => {
      const expected = [
        'DAY         REQUESTS  TOKENS IN  CACHED IN  TOKENS OUT  COST      INPUT  CACHED_INPUT  OUTPUT',
        '2026-01-10  2         200        20         40          $2.0015   180    20            40',
        '2026-01-11  1         100        10         20          $0.00025  90     10            20',
        'total       3         300        30         60          $2.00175  270    30            60',
      ];
      assert.deepEqual(await ok('usage', 'team', ...JAN_10_11, '--by', 'day'), expected);
      assert.deepEqual(await ok('usage', 'team', ...JAN_10_11), expected, '--by day is the default');
      assert.deepEqual(
        (await ok('usage', 'team', '--since', '2026-01-10T08:00:00Z', '--until', '2026-01-10T12:00')).slice(
          1,
          2,
        ),
        ['2026-01-10  1         100        10         20          $0.0015  90     10            20'],
        'timestamps: since included, until excluded, no offset is UTC',
      );
      assert.deepEqual(await ok('usage', 'team', '--until', '2026-01-09'), [
        'DAY         REQUESTS  TOKENS IN  CACHED IN  TOKENS OUT  COST       INPUT  CACHED_INPUT  OUTPUT',
        '2026-01-09  1         100        10         20          $0.000001  90     10            20',
        'total       1         100        10         20          $0.000001  90     10            20',
      ]);
      assert.deepEqual(await ok('usage', 'team', '--since', '2027-01-01'), ['no usage in this period']);
    });

    it('groups by model, token and user', async () => {
      assert.deepEqual(await ok('usage', 'team', ...JAN_10_11, '--by', 'model'), [
        'PROVIDER   MODEL  REQUESTS  TOKENS IN  CACHED IN  TOKENS OUT  COST      INPUT  CACHED_INPUT  OUTPUT',
        'cloud_b    b-1    1         100        10         20          $0.00025  90     10            20',
        'developer  gpt-a  2         200        20         40          $2.0015   180    20            40',
        'total             3         300        30         60          $2.00175  270    30            60',
      ]);
      const tokens = await ok('usage', 'team', ...JAN_10_11, '--by', 'token');
      assert.equal(tokens.length, 5, 'header, three tokens, total');
      assert.match(tokens[0] ?? '', /^TOKEN\s+USER\s+REQUESTS/);
      for (const [jti, email, cost] of [
        [alice.tokenId, 'alice@example.com', '$0.0015'],
        [secondJti, 'alice@example.com', '$0.00025'],
        [bob.tokenId, 'bob@example.com', '$2.00'],
      ] as const)
        assert.ok(
          tokens.some((line) => line.startsWith(jti) && line.includes(email) && line.includes(` ${cost} `)),
          `${jti} ${email} ${cost}: ${tokens.join('\n')}`,
        );
      assert.deepEqual(await ok('usage', 'team', ...JAN_10_11, '--by', 'user', '--csv'), [
        'user,requests,input_tokens,cached_input_tokens,output_tokens,cost_usd,input,cached_input,output',
        'alice@example.com,2,200,20,40,0.00175,180,20,40',
        'bob@example.com,1,100,10,20,2.00,90,10,20',
      ]);
    });

    it('quotes CSV fields and defuses what a spreadsheet would run as a formula', async () => {
      assert.deepEqual(await ok('usage', 'other', '--by', 'model', '--csv'), [
        'provider,model,requests,input_tokens,cached_input_tokens,output_tokens,cost_usd,input,cached_input,output',
        `developer,"'=x,""y""",1,100,10,20,0.000005,90,10,20`,
      ]);
    });

    it('shows a meter unknown today (image_input) in every grouping and the allocation table', async () => {
      for (const by of ['day', 'model', 'token', 'user'])
        for (const csv of [[], ['--csv']]) {
          const [header, first] = await ok('usage', 'imaging', '--by', by, ...csv);
          const cells = (csv.length > 0 ? first : first?.replace(/\s+/g, ','))?.split(',') ?? [];
          const titles = (csv.length > 0 ? header : header?.replace(/\s+/g, ','))?.split(',') ?? [];
          const meter = titles.indexOf(csv.length > 0 ? 'image_input' : 'IMAGE_INPUT');
          assert.ok(meter > 0, `${by} ${csv.join('')}: ${header}`);
          assert.equal(cells.at(meter - titles.length), '300', `${by} ${csv.join('')}: ${first}`);
          assert.ok(
            !titles.some((title) => /cached_input$/i.test(title)),
            'a meter nothing used has no column',
          );
        }
      const [header, developer] = await ok('usage', 'imaging', '--csv');
      assert.equal(developer?.split(',')[5], '1', 'a failed-over request counts once');
      // The known meters in their order, then the others by name.
      assert.equal(header?.split(',').slice(-3).join(','), 'input,output,image_input');
      assert.equal(developer?.split(',').slice(-3).join(','), '5,2,300');
    });

    it('refuses a bad period or grouping with exit 2, and an unknown project with exit 1', async () => {
      for (const [args, message] of [
        [
          ['--since', '2026-02-30'],
          "--since must be a UTC date (YYYY-MM-DD) or an ISO timestamp such as 2026-11-01T09:30:00Z, got '2026-02-30'",
        ],
        [
          ['--until', 'tomorrow'],
          "--until must be a UTC date (YYYY-MM-DD) or an ISO timestamp such as 2026-11-01T09:30:00Z, got 'tomorrow'",
        ],
        [
          ['--since', '2026-01-11', '--until', '2026-01-10'],
          '--since (2026-01-11) is after --until (2026-01-10)',
        ],
        [['--by', 'week'], "--by must be one of day, model, token, user, got 'week'"],
        [['--by'], "Option '--by <value>' argument missing"],
      ] as const) {
        const result = await ctl('usage', 'team', ...args);
        assert.equal(result.code, 2, args.join(' '));
        assert.equal(result.stdout, '');
        assert.equal(result.stderr, `gatewayctl: ${message}. Run 'gatewayctl --help' for usage.`);
      }
      const unknown = await ctl('usage', 'nope', '--by', 'day');
      assert.equal(unknown.code, 1);
      assert.match(unknown.stderr, /No project 'nope'/);
    });
  });
}
