import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import type {
  AttemptActivity,
  Ledger,
  Principal,
  Reservation,
  RoutePlan,
  Router,
  Selection,
  UsageRecord,
} from '../contracts.ts';
import { usageFromMeters } from '@app/provider-adapters';
import { SecretRedactor } from '../upstream/index.ts';
import type { AttemptRecord } from './call-context.ts';
import { CallOutcome, type OutcomeInit } from './call-outcome.ts';
import { estimateOutputTokens } from './estimate.ts';

const PRICE = { rates: { input: 1, cached_input: 0.1, output: 2 }, byPromptSize: [] };
const PLAN = { model: 'gpt-5.4', contextWindow: 1000, maxOutputTokens: 100 } as unknown as RoutePlan;
const SELECTION = {
  provider: 'developer',
  prices: {},
  price: PRICE,
  options: { effort: 'medium', tier: 'standard' },
} as unknown as Selection;
const RESERVATION = { id: 'r1' } as unknown as Reservation;

/** An outcome whose ledger, router and limits record what ran, and whose settle can fail. */
function outcome(settle: () => Promise<void>, request?: OutcomeInit['request']) {
  const ran: string[] = [];
  const settledWith: UsageRecord[] = [];
  const releasedWith: (AttemptActivity | undefined)[] = [];
  const errors: { fields: unknown; message: string }[] = [];
  const pending = new Set<Promise<unknown>>();
  const log = {
    error: (fields: unknown, message: string) => errors.push({ fields, message }),
    warn: () => {},
  } as unknown as FastifyBaseLogger;
  const ledger = {
    settle: async (_reservation: Reservation, usage: UsageRecord) => (
      ran.push('settle'),
      settledWith.push(usage),
      settle()
    ),
    release: async (
      _reservation: Reservation,
      _reason: string,
      _model: string,
      activity?: AttemptActivity,
    ) => {
      ran.push('release');
      releasedWith.push(activity);
    },
  } as unknown as Ledger;
  const router = { report: async () => void ran.push('report') } as unknown as Router;
  const call = new CallOutcome({
    ledger,
    router,
    reservation: RESERVATION,
    selection: SELECTION,
    principal: {} as Principal,
    plan: PLAN,
    price: PRICE,
    promptEstimate: 10,
    outputLimit: 100,
    webSearchLimit: 0,
    limits: { finish: async () => void ran.push('limits') },
    log,
    secrets: new SecretRedactor(),
    pending,
    ...(request ? { request } : {}),
  });
  const settled = async () => {
    while (pending.size > 0) await Promise.allSettled([...pending]);
  };
  return { call, ran, errors, pending, settled, settledWith, releasedWith };
}

test("an ending's ledger, limit and router work runs after the response, together, once", async () => {
  const { call, ran, pending, settled } = outcome(async () => {});
  call.succeeded({ usage: undefined, generatedChars: 40 });
  call.succeeded({ usage: undefined, generatedChars: 40 });
  call.gatewayFault();
  assert.deepEqual(ran, [], 'nothing runs before the response is written');
  assert.equal(pending.size, 1, 'one tracked piece of work per ending');
  await settled();
  assert.deepEqual(ran.sort(), ['limits', 'report', 'settle']);
});

test('a failing settlement is logged with its own message and does not stop the others', async () => {
  const { call, ran, errors, settled } = outcome(async () => {
    throw new Error('database down');
  });
  call.succeeded({ usage: undefined, generatedChars: 40 });
  await settled();
  assert.deepEqual(ran.sort(), ['limits', 'report', 'settle']);
  assert.deepEqual(
    errors.map((e) => e.message),
    ['ledger settle failed'],
  );
  assert.deepEqual(errors[0]?.fields, { err: new Error('database down'), reservation: 'r1' });
});

test('the ledger gets the charged usage as meters: disjoint kinds, zero meters left out', async () => {
  const { call, settled, settledWith } = outcome(async () => {});
  const usage = usageFromMeters({
    input: 60,
    cached_input: 30,
    cache_write_5m: 10,
    output: 30,
    reasoning: 20,
  });
  call.succeeded({ usage, generatedChars: 0 });
  await settled();
  const [record] = settledWith;
  assert.deepEqual(record?.meters, {
    input: 60,
    cached_input: 30,
    cache_write_5m: 10,
    output: 30,
    reasoning: 20,
  });
  assert.deepEqual([record?.promptTokens, record?.completionTokens], [100, 50], 'the totals stay whole');
});

test('without upstream usage the estimate is metered: the prompt estimate and the text sent', async () => {
  const { call, settled, settledWith } = outcome(async () => {});
  call.clientLeft({ usage: undefined, generatedChars: 400 });
  await settled();
  assert.deepEqual(settledWith[0]?.meters, { input: 10, output: estimateOutputTokens(400) });
});

test('a release never sent starts a request only when no attempt went before it', async () => {
  const sent = { provider: 'developer', model: 'gpt-5.4', outcome: 'server', startedAt: 0 } as AttemptRecord;
  const first = outcome(async () => {}, { id: 'req-alone', attempts: [] });
  first.call.notSent('not expressible upstream');
  const after = outcome(async () => {}, { id: 'req-failed-over', attempts: [sent] });
  after.call.notSent('not expressible upstream');
  await Promise.all([first.settled(), after.settled()]);
  assert.deepEqual(
    [...first.releasedWith, ...after.releasedWith].map((a) => [a?.requestId, a?.attempt, a?.newRequest]),
    [
      ['req-alone', undefined, true],
      ['req-failed-over', undefined, false],
    ],
  );
});
