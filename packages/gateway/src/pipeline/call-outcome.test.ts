import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyBaseLogger } from 'fastify';
import type { Ledger, Principal, Reservation, RoutePlan, Router, Selection } from '../contracts.ts';
import { SecretRedactor } from '../upstream/index.ts';
import { CallOutcome } from './call-outcome.ts';

const PRICE = { rates: { input: 1, cached_input: 0.1, output: 2 }, byPromptSize: [] };
const PLAN = { model: 'gpt-5.4', contextWindow: 1000, maxOutputTokens: 100 } as unknown as RoutePlan;
const SELECTION = { provider: 'developer', prices: {}, price: PRICE } as unknown as Selection;
const RESERVATION = { id: 'r1' } as unknown as Reservation;

/** An outcome whose ledger, router and limits record what ran, and whose settle can fail. */
function outcome(settle: () => Promise<void>) {
  const ran: string[] = [];
  const errors: { fields: unknown; message: string }[] = [];
  const pending = new Set<Promise<unknown>>();
  const log = {
    error: (fields: unknown, message: string) => errors.push({ fields, message }),
    warn: () => {},
  } as unknown as FastifyBaseLogger;
  const ledger = {
    settle: async () => (ran.push('settle'), settle()),
    release: async () => void ran.push('release'),
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
  });
  const settled = async () => {
    while (pending.size > 0) await Promise.allSettled([...pending]);
  };
  return { call, ran, errors, pending, settled };
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
