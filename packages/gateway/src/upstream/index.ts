import type { UpstreamHttpRequest } from '@app/provider-adapters';
import type { FastifyBaseLogger } from 'fastify';
import type { UpstreamTarget } from '../contracts.ts';
import type { UpstreamConfig } from './config.ts';
import type { SecretRedactor } from './credentials/secret-redactor.ts';
import { CredentialError } from './credentials/signer.ts';
import { Transport, type UpstreamResponse } from './transport.ts';
import { TransportError, toTransportError } from './transport-error.ts';

export interface UpstreamDeps {
  readonly config: UpstreamConfig;
  readonly log: FastifyBaseLogger;
  /** The gateway's credentials, as the signers made at start-up and their tokens report them. */
  readonly secrets: SecretRedactor;
}

/** Transport to upstreams (signing, undici pools, timeouts); adapters translate around it. */
export interface Upstream {
  readonly config: UpstreamConfig;
  /**
   * Clears upstream text of the gateway's own credentials before it is relayed or logged (error
   * text only: successful answers are never scanned).
   */
  readonly secrets: SecretRedactor;
  /**
   * Signs the adapter's request with the target's credentials, last, over exactly what is sent
   * (SigV4 hashes the body), and sends it. Throws TransportError (timeout, connection, aborted,
   * credentials) when no response arrives.
   */
  send(target: UpstreamTarget, request: UpstreamHttpRequest, signal: AbortSignal): Promise<UpstreamResponse>;
  close(): Promise<void>;
}

export async function createUpstream(deps: UpstreamDeps): Promise<Upstream> {
  const transport = new Transport(deps.config, deps.log);
  return {
    config: deps.config,
    secrets: deps.secrets,
    async send(target, request, signal) {
      let headers: Record<string, string>;
      try {
        headers = await target.signer.sign(request, signal);
      } catch (error) {
        if (signal.aborted) throw toTransportError(error, signal);
        if (!(error instanceof CredentialError)) throw error;
        // The reason may quote a token endpoint's error code: cleared like any upstream text.
        deps.log.error(
          { signer: target.signer.kind, reason: deps.secrets.redact(error.message) },
          'upstream credentials unavailable',
        );
        throw new TransportError('credentials', 'CREDENTIALS', true);
      }
      return transport.send({ ...request, headers, timeoutMs: target.timeoutMs }, signal);
    },
    close: () => transport.close(),
  };
}

export type { OutgoingRequest, UpstreamResponse } from './transport.ts';
export { DeadlineExceeded, TransportError } from './transport-error.ts';
export { REDACTED, SECRET_RUN, SecretRedactor } from './credentials/secret-redactor.ts';
