/** Test support of the ledger, for tests of other areas that read the usage ledger. */
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
