/**
 * Upstream authentication: an asynchronous signer over the final request, outside the
 * adapters. SigV4 must hash the exact body the adapter built, and OAuth tokens are fetched
 * and refreshed asynchronously, so signing is the last step before the transport sends.
 */

/** The request exactly as it will be sent, minus credentials. */
export interface SignableRequest {
  readonly method: 'POST' | 'GET';
  /** Absolute URL. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

export interface Signer {
  /** Which credential kind this is (for logs and the start-up check; never a secret). */
  readonly kind: string;
  /**
   * The headers to send: the request's own plus the credentials (lower-case names). Rejects
   * with CredentialError when no credential can be had (token endpoint down, bad key file).
   */
  sign(request: SignableRequest, signal?: AbortSignal): Promise<Record<string, string>>;
  /** Releases timers or clients the signer holds. */
  close(): Promise<void>;
}

/** A credential could not be read or obtained; the message names its location, never a value. */
export class CredentialError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'CredentialError';
  }
}
