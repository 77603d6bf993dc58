/** Test support of the ledger, for its own tests and those of other areas that read the usage ledger. */
import type { Kysely } from 'kysely';
import type { GatewayDatabase } from '../db/schema.ts';
import { liveLedgers } from './ledger.ts';

/**
 * Resolves once no ledger of this process has an open reservation or a row waiting for its
 * group commit: every request that ended is in the usage table. Gives up after `timeoutMs`
 * (a test that keeps a request open on purpose still gets the rows committed so far).
 */
export async function ledgersSettled(timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline && ![...liveLedgers].every((ledger) => ledger.settled()))
    await new Promise((resolve) => setTimeout(resolve, 2));
}

/** A method of a Kysely object bound to it (its private fields refuse a proxy as `this`). */
export function member(target: object, key: string | symbol): unknown {
  const value: unknown = Reflect.get(target, key);
  return typeof value === 'function' ? value.bind(target) : value;
}

/**
 * `db` seen through a spy that counts the transactions begun on it: every lease write (a lease
 * taken, grown, returned or shrunk) and every group commit is one.
 */
export function countingTransactions(db: Kysely<GatewayDatabase>) {
  const counted = { transactions: 0 };
  const spied = new Proxy(db, {
    get: (target, key) => {
      if (key === 'transaction') counted.transactions++;
      return member(target, key);
    },
  });
  return { db: spied, counted };
}
