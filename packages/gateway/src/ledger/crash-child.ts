/**
 * A gateway instance's ledger in a process of its own, for crash.test.ts: it settles one batch
 * of requests and lets the flush interval commit it, settles a second batch and opens more
 * reservations, reports what it did on stdout and waits to be killed with SIGKILL.
 */
import { openDatabase } from '@app/db';
import pino from 'pino';
import type { Principal } from '../contracts.ts';
import type { GatewayDatabase } from '../db/schema.ts';
import { createLedger } from './ledger.ts';

interface ChildInput {
  readonly url: string;
  readonly schema: string | undefined;
  readonly principal: Principal;
  readonly flushMs: number;
  readonly leaseTtlMs: number;
}

const input = JSON.parse(process.argv[2] ?? '{}') as ChildInput;
const principal = { ...input.principal, tokenExpiresAt: new Date(input.principal.tokenExpiresAt) };
const database = await openDatabase<GatewayDatabase>(input.url, input.schema ? { schema: input.schema } : {});
const ledger = createLedger({
  db: database.db,
  log: pino({ level: 'silent' }),
  options: { flushMs: input.flushMs, leaseTtlMs: input.leaseTtlMs, chunkMicros: 200_000 },
});
const usage = (costMicros: number) =>
  ({
    model: 'm-1',
    promptTokens: 1,
    completionTokens: 1,
    meters: { input: 1, output: 1 },
    costMicros,
    status: 'ok',
  }) as const;
const reserve = () => ledger.reserve({ principal, provider: 'cloud_b', estimateMicros: 10_000 });

let committed = 0;
for (let i = 0; i < 5; i++) {
  const r = await reserve();
  // Not awaited: the flush interval, not the caller, commits these rows.
  void ledger.settle(r, usage(2_000));
  committed += 2_000;
}
await new Promise((resolve) => setTimeout(resolve, input.flushMs * 1.5));
let unflushed = 0;
for (let i = 0; i < 3; i++) {
  void ledger.settle(await reserve(), usage(3_000));
  unflushed += 3_000;
}
const inFlight = [await reserve(), await reserve()].reduce((sum, r) => sum + r.amountMicros, 0);
process.stdout.write(`${JSON.stringify({ committed, unflushed, inFlight })}\n`);
setInterval(() => {}, 60_000);
