import type { SecretRedactor } from './secret-redactor.ts';

/** What every signer factory receives from the host (only main.ts reads process.env). */
export interface SignerDeps {
  /** Environment for `env:` secret locations. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** Clock in epoch milliseconds (token expiry, SigV4 date); Date.now when absent. */
  readonly now?: () => number;
  /** The endpoint's region (a Bedrock endpoint's `region`): what SigV4 signs for by default. */
  readonly region?: string;
  /** The endpoint's Google Cloud project (Vertex), so that ADC need not look one up. */
  readonly project?: string;
  /**
   * Told every secret the signer reads and every token it obtains, so that upstream text can be
   * cleared of them (absent in tools that never relay upstream text, e.g. catalog-check).
   */
  readonly secrets?: SecretRedactor;
}
