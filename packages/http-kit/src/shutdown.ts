import closeWithGrace from 'close-with-grace';

export interface Closable {
  close(): Promise<unknown>;
}

/**
 * On SIGTERM/SIGINT: stop accepting connections and let in-flight requests (long streams
 * included) finish, up to `deadlineMs`, then close pools. A second signal or the deadline ends
 * the process. Returns the uninstall function (tests call it).
 */
export function closeOnSignals(
  targets: readonly Closable[],
  options: {
    deadlineMs: number;
    log: (message: string, error?: unknown) => void;
    /** Called once everything closed in time: the operator's "stopped" line. */
    onStopped?: () => void;
  },
): () => void {
  const handle = closeWithGrace({ delay: options.deadlineMs }, async ({ signal, err }) => {
    if (err) options.log('shutting down after an uncaught error', err);
    else options.log(`received ${signal ?? 'shutdown'}, draining in-flight requests`);
    // Close in order: servers first (stop accepting, drain), then what they depend on.
    for (const target of targets) await target.close();
    options.onStopped?.();
  });
  return () => handle.uninstall();
}
