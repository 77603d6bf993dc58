/**
 * Work that must happen for a request but not before its answer: ledger settlement, router
 * reports. It runs on the next turn of the event loop, after the response bytes have been handed
 * to the socket, because the embedded SQLite database is synchronous (a commit, fsync included,
 * blocks the event loop) and would otherwise sit between the upstream's answer and the client.
 * `pending` lets shutdown wait for it.
 */
export function afterResponse(
  pending: Set<Promise<unknown>>,
  work: () => Promise<unknown>,
  onError: (error: unknown) => void,
): void {
  const tracked: Promise<void> = new Promise<void>((resolve) => setImmediate(resolve))
    .then(work)
    .then(
      () => undefined,
      (error: unknown) => onError(error),
    )
    .finally(() => pending.delete(tracked));
  pending.add(tracked);
}
