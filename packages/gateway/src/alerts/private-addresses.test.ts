/**
 * Webhooks never reach a private address unless the operator allows it: not through an IP
 * literal, not through a name that resolves to one (checked at connect time, every address of
 * the name). Such an alert fails at once, with one error log line, and is not retried. What a
 * receiver answers is stored without control characters.
 */
import assert from 'node:assert/strict';
import type { LookupAddress } from 'node:dns';
import { Writable } from 'node:stream';
import { after, before, describe, it } from 'node:test';
import { migrateToLatest } from '@app/db';
import { type IsolatedDatabase, isolatedDatabase } from '@app/db/testing.ts';
import pino from 'pino';
import { addProject, setAllocation } from '../access/admin.ts';
import { gatewayMigrations } from '../db/migrations.ts';
import type { GatewayDatabase } from '../db/schema.ts';
import { isPublicAddress, PRIVATE_ADDRESS_ERROR, type Resolve, webhookLookup } from './addresses.ts';
import { createDeliverer } from './deliver.ts';
import { detectCrossings } from './detect.ts';
import { printable } from './printable.ts';
import { setAlertSettings } from './settings.ts';
import { type Receiver, webhookReceiver } from './testing.ts';

/** A resolver that answers every name with `addresses` (the test's DNS). */
const resolvingTo =
  (...addresses: string[]): Resolve =>
  (_hostname, _options, callback) =>
    callback(
      null,
      addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
    );

describe('which addresses a webhook may reach', () => {
  it('only global unicast ones: no private, loopback, link-local, unique-local, CGNAT, multicast or unspecified', () => {
    const refused = [
      '10.1.2.3',
      '172.16.0.1',
      '192.168.1.1',
      '127.0.0.1',
      '169.254.169.254',
      '100.64.0.1',
      '224.0.0.1',
      '0.0.0.0',
      '255.255.255.255',
      '::',
      '::1',
      '[::1]',
      'fe80::1%eth0',
      'fc00::1',
      'fd12:3456::1',
      'ff02::1',
      '::ffff:127.0.0.1',
      '64:ff9b::a00:1',
      'not an address',
    ];
    assert.deepEqual(
      refused.filter((address) => isPublicAddress(address)),
      [],
    );
    assert.ok(['8.8.8.8', '93.184.215.14', '2606:4700:4700::1111'].every(isPublicAddress));
  });

  const lookup = (allowPrivate: boolean, resolve: Resolve) =>
    new Promise<{ error: NodeJS.ErrnoException | null; result: string | LookupAddress[] }>((done) => {
      const fn = webhookLookup({ allowPrivate, resolve });
      assert.ok(fn);
      fn('hooks.example.com', { all: true }, (error, result) => done({ error, result }));
    });

  it('refuses a name when any of its addresses is private, and passes it on when all are public', async () => {
    const mixed = await lookup(false, resolvingTo('93.184.215.14', '10.0.0.7'));
    assert.equal(mixed.error?.message, PRIVATE_ADDRESS_ERROR);
    const publicOnly = await lookup(false, resolvingTo('93.184.215.14', '2606:4700:4700::1111'));
    assert.equal(publicOnly.error, null);
    assert.equal((publicOnly.result as LookupAddress[]).length, 2);
    const allowed = await lookup(true, resolvingTo('10.0.0.7'));
    assert.deepEqual([allowed.error, allowed.result], [null, [{ address: '10.0.0.7', family: 4 }]]);
  });

  it('keeps no control or format characters of a receiver answer', () => {
    assert.equal(
      printable('\u001b[31mred\u0000 \u202Eevil\u200B\r\n\tnext\u0085line\u0007 '),
      '[31mred evil nextline',
    );
  });
});

describe('webhook deliveries to private addresses', () => {
  let isolated: IsolatedDatabase<GatewayDatabase>;
  let receiver: Receiver;
  const logs: Array<Record<string, unknown>> = [];
  const log = pino(
    { level: 'info' },
    new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean))
          logs.push(JSON.parse(line) as Record<string, unknown>);
        done();
      },
    }),
  );
  const options = { retryBaseMs: 10, retryCapMs: 10, giveUpMs: 60_000, timeoutMs: 2_000 };
  let projects = 0;

  before(async () => {
    isolated = await isolatedDatabase<GatewayDatabase>('sqlite');
    await migrateToLatest(isolated.database.db, gatewayMigrations);
    receiver = await webhookReceiver({ failures: 1, failureBody: '\u001b[2Jgone\u0000 \u202Efor\nnow' });
    await receiver.up();
  });
  after(async () => {
    await receiver.down();
    await isolated.drop();
  });

  /** One crossed threshold of a new project whose webhook is `url`; the alert's row. */
  async function alertTo(url: string) {
    const db = isolated.database.db;
    const slug = `p${++projects}`;
    await addProject(db, { slug });
    await setAllocation(db, { slug, provider: 'cloud_a', usd: 1 });
    const policy = { allowHttp: 'any', allowPrivate: true } as const;
    await setAlertSettings(db, policy, { slug, thresholds: '50', webhookUrl: url });
    const project = await db
      .selectFrom('projects')
      .select('id')
      .where('slug', '=', slug)
      .executeTakeFirstOrThrow();
    await db
      .updateTable('allocations')
      .set({ spent_micros: 600_000 })
      .where('project_id', '=', project.id)
      .execute();
    assert.equal(await detectCrossings(db, pino({ level: 'silent' })), 1);
    return () =>
      db
        .selectFrom('budget_alerts')
        .select(['delivery', 'attempts', 'last_error'])
        .where('project_id', '=', project.id)
        .executeTakeFirstOrThrow();
  }

  /** Two delivery rounds (a retry would happen in the second) with the given setting. */
  async function deliver(allowPrivate: boolean, resolve?: Resolve) {
    const deliverer = createDeliverer({
      db: isolated.database.db,
      log,
      options: { ...options, allowPrivate },
      ...(resolve ? { resolve } : {}),
    });
    await deliverer.deliverDue();
    await new Promise((resolve) => setTimeout(resolve, 30));
    await deliverer.deliverDue();
    await deliverer.close();
  }

  const port = () => new URL(receiver.url).port;

  it('refuses `localhost` (resolved to 127.0.0.1) for good at the first attempt when not allowed', async () => {
    const alert = await alertTo(`http://localhost:${port()}/hook`);
    logs.length = 0;
    await deliver(false);
    const row = await alert();
    assert.deepEqual(
      [row.delivery, Number(row.attempts), row.last_error],
      ['failed', 1, PRIVATE_ADDRESS_ERROR],
    );
    assert.equal(receiver.requests.length, 0, 'nothing was sent');
    assert.deepEqual(
      logs.map((line) => [line.level, line.msg, line.error, line.host]),
      [[50, 'budget alert webhook failed: refused', PRIVATE_ADDRESS_ERROR, `localhost:${port()}`]],
    );
  });

  it('refuses a name the resolver maps to 127.0.0.1, and a stored IP literal, when not allowed', async () => {
    const named = await alertTo(`http://hooks.example.test:${port()}/hook`);
    const literal = await alertTo(`http://127.0.0.1:${port()}/hook`);
    await deliver(false, resolvingTo('127.0.0.1'));
    for (const row of [await named(), await literal()])
      assert.deepEqual(
        [row.delivery, Number(row.attempts), row.last_error],
        ['failed', 1, PRIVATE_ADDRESS_ERROR],
      );
    assert.equal(receiver.requests.length, 0);
  });

  it('delivers to both names when GATEWAY_ALERT_WEBHOOK_ALLOW_PRIVATE is on, storing answers printable', async () => {
    const viaLocalhost = await alertTo(`http://localhost:${port()}/hook`);
    const viaResolver = await alertTo(`http://hooks.example.test:${port()}/hook`);
    await deliver(true, resolvingTo('127.0.0.1'));
    assert.equal(receiver.delivered.length, 2);
    const rows = [await viaLocalhost(), await viaResolver()];
    assert.deepEqual(
      rows.map((row) => row.delivery),
      ['delivered', 'delivered'],
    );
    // The first request was answered 503 with control characters, then retried.
    const retried = rows.find((row) => Number(row.attempts) === 2);
    assert.equal(retried?.last_error, 'HTTP 503: [2Jgone for now');
  });
});
