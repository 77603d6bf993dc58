import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { migrateToLatest } from '@app/db';
import { type IsolatedDatabase, isolatedDatabase, testEngines } from '@app/db/testing.ts';
import pino from 'pino';
import { gatewayMigrations } from '../db/migrations.ts';
import type { GatewayDatabase } from '../db/schema.ts';
import {
  AccessAdminError,
  addProject,
  addUser,
  approveMembership,
  issueToken,
  listTokens,
  projectUsage,
  requestMembership,
  revokeMembership,
  revokeToken,
  setAllocation,
} from './admin.ts';
import { loadSigningKeys, type SigningKeys, signingKeyLocation } from './keys.ts';
import { listMembers, listProjects, listUsers } from './listings.ts';
import { createLedger } from '../ledger/ledger.ts';

const POLICY = { defaultTtl: '7d', maxTtl: '30d' };

function refusedWith(code: string) {
  return (error: unknown) => {
    assert.ok(error instanceof AccessAdminError);
    assert.equal(error.code, code);
    return true;
  };
}

for (const { engine, skip } of testEngines()) {
  describe(`access admin service on ${engine}`, { skip }, () => {
    let isolated: IsolatedDatabase<GatewayDatabase>;
    let dir: string;
    let keys: SigningKeys;
    before(async () => {
      isolated = await isolatedDatabase<GatewayDatabase>(engine);
      await migrateToLatest(isolated.database.db, gatewayMigrations);
      dir = mkdtempSync(join(tmpdir(), 'gw-admin-'));
      keys = await loadSigningKeys(signingKeyLocation(dir, undefined));
    });
    after(async () => {
      await isolated.drop();
      rmSync(dir, { recursive: true, force: true });
    });

    it('moves a membership pending -> approved -> revoked -> pending and keeps the admin flag', async () => {
      const db = isolated.database.db;
      await addUser(db, { email: 'm@example.com' });
      await addProject(db, { slug: 'life' });
      assert.equal((await requestMembership(db, { slug: 'life', email: 'M@example.com' })).status, 'pending');
      assert.equal((await requestMembership(db, { slug: 'life', email: 'm@example.com' })).status, 'pending');
      const approved = await approveMembership(db, { slug: 'life', email: 'm@example.com', admin: true });
      assert.deepEqual([approved.status, approved.isAdmin], ['approved', true]);
      assert.equal((await approveMembership(db, { slug: 'life', email: 'm@example.com' })).isAdmin, true);
      await assert.rejects(
        requestMembership(db, { slug: 'life', email: 'm@example.com' }),
        refusedWith('already_member'),
      );
      assert.equal((await revokeMembership(db, { slug: 'life', email: 'm@example.com' })).status, 'revoked');
      assert.equal((await requestMembership(db, { slug: 'life', email: 'm@example.com' })).status, 'pending');
    });

    it('needs an allocation above $0 to issue a token, and lists token states', async () => {
      const db = isolated.database.db;
      await addUser(db, { email: 't@example.com' });
      await addProject(db, { slug: 'tok', ipAllow: ['10.0.0.0/8, ::1'] });
      await requestMembership(db, { slug: 'tok', email: 't@example.com' });
      await approveMembership(db, { slug: 'tok', email: 't@example.com' });
      await setAllocation(db, { slug: 'tok', provider: 'developer', usd: 0 });
      const input = { email: 't@example.com', slug: 'tok' };
      await assert.rejects(issueToken(db, keys, POLICY, input), refusedWith('no_allocation'));
      await setAllocation(db, { slug: 'tok', provider: 'developer', usd: 2.5 });
      const first = await issueToken(db, keys, POLICY, { ...input, description: ' ci ' });
      const second = await issueToken(db, keys, POLICY, { ...input, ttl: '1s' });
      assert.ok(Math.abs(first.expiresAt.getTime() - Date.now() - 7 * 86_400_000) < 2000, 'default 7d');
      await revokeToken(db, first.jti);
      assert.equal((await revokeToken(db, first.jti)).jti, first.jti, 'idempotent');
      await new Promise((resolve) => setTimeout(resolve, 1100));
      const states = Object.fromEntries(
        (await listTokens(db, { email: 't@example.com' })).map((t) => [t.jti, t]),
      );
      assert.equal(states[first.jti]?.state, 'revoked');
      assert.equal(states[first.jti]?.description, 'ci');
      assert.equal(states[second.jti]?.state, 'expired');
      const stored = await db
        .selectFrom('access_tokens')
        .selectAll()
        .where('jti', '=', first.jti)
        .executeTakeFirst();
      assert.ok(stored && !Object.values(stored).includes(first.token), 'the token itself is not stored');
    });

    it('lists users and projects with their membership counts, and the members of one project', async () => {
      const db = isolated.database.db;
      await addUser(db, { email: 'l1@example.com', admin: true });
      await addUser(db, { email: 'l2@example.com' });
      await addProject(db, { slug: 'lst', ipAllow: ['192.0.2.0/24'] });
      await requestMembership(db, { slug: 'lst', email: 'l1@example.com' });
      await approveMembership(db, { slug: 'lst', email: 'l1@example.com' });
      await requestMembership(db, { slug: 'lst', email: 'l2@example.com' });
      const users = await listUsers(db);
      const l1 = users.find((user) => user.email === 'l1@example.com');
      assert.deepEqual([l1?.isAdmin, l1?.projects], [true, 1]);
      assert.equal(users.find((user) => user.email === 'l2@example.com')?.projects, 0);
      const project = (await listProjects(db)).find((p) => p.slug === 'lst');
      assert.deepEqual(
        [project?.approvedMembers, project?.pendingMembers, project?.ipAllow],
        [1, 1, ['192.0.2.0/24']],
      );
      assert.deepEqual(
        (await listMembers(db, 'lst')).map((m) => [m.email, m.status]),
        [
          ['l1@example.com', 'approved'],
          ['l2@example.com', 'pending'],
        ],
      );
      await assert.rejects(listMembers(db, 'nope'), refusedWith('unknown_project'));
    });

    it('lists buckets in the one provider order (developer, cloud_a, cloud_b, cloud_c), as gatewayctl usage shows them', async () => {
      const db = isolated.database.db;
      await addProject(db, { slug: 'order' });
      for (const provider of ['cloud_c', 'cloud_a', 'developer', 'cloud_b'])
        await setAllocation(db, { slug: 'order', provider, usd: 1 });
      assert.deepEqual(
        (await projectUsage(db, 'order')).map((bucket) => bucket.provider),
        ['developer', 'cloud_a', 'cloud_b', 'cloud_c'],
      );
    });

    it('sets (not adds to) allocations and reports usage per bucket from the ledger', async () => {
      const db = isolated.database.db;
      await addUser(db, { email: 'u@example.com' });
      await addProject(db, { slug: 'use' });
      await requestMembership(db, { slug: 'use', email: 'u@example.com' });
      await approveMembership(db, { slug: 'use', email: 'u@example.com' });
      await setAllocation(db, { slug: 'use', provider: 'cloud_c', usd: 1 });
      await setAllocation(db, { slug: 'use', provider: 'cloud_c', usd: 3 });
      const issued = await issueToken(db, keys, POLICY, { email: 'u@example.com', slug: 'use' });
      const ledger = createLedger({ db, log: pino({ level: 'silent' }) });
      const principal = {
        userId: issued.userId,
        email: 'u@example.com',
        projectId: issued.projectId,
        projectSlug: 'use',
        tokenId: issued.jti,
        tokenExpiresAt: issued.expiresAt,
        limits: { project: {}, token: {} },
      };
      const r = await ledger.reserve({ principal, provider: 'cloud_c', estimateMicros: 50_000 });
      await ledger.settle(r, {
        model: 'x',
        promptTokens: 100,
        completionTokens: 40,
        meters: { input: 100, output: 40 },
        costMicros: 20_000,
        status: 'ok',
      });
      const open = await ledger.reserve({ principal, provider: 'cloud_c', estimateMicros: 10_000 });
      // Reserved is what the instance's lease holds: an eighth of the $3 bucket, less the $0.02
      // settled; the request still open has no ledger row yet.
      assert.deepEqual(await projectUsage(db, 'use'), [
        {
          provider: 'cloud_c',
          allocatedMicros: 3_000_000,
          spentMicros: 20_000,
          reservedMicros: 375_000 - 20_000,
          requests: 1,
          promptTokens: 100,
          completionTokens: 40,
          meters: { input: 100, output: 40 },
        },
      ]);
      await ledger.release(open, 'test');
      await ledger.close();
    });
  });
}
