/** What every signer factory receives from the host (only main.ts reads process.env). */
export interface SignerDeps {
  /** Environment for `env:` secret locations. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Clock in epoch milliseconds (token expiry, SigV4 date); Date.now when absent. */
  readonly now?: () => number;
}
