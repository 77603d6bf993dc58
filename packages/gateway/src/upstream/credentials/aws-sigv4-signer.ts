/**
 * AWS Signature Version 4 (Bedrock and other AWS services) with @smithy/signature-v4. The
 * signature covers the exact method, host, path, query, headers and body that will be sent,
 * so signing must be the last step before the transport.
 */
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import { ownHeaders } from './request-headers.ts';
import { type AwsSigv4Auth, DEFAULT_AWS_SERVICE } from './schema.ts';
import { readHeaderSecret, readSecret } from './secrets.ts';
import { CredentialError, type SignableRequest, type Signer } from './signer.ts';
import type { SignerDeps } from './signer-deps.ts';

type Query = Record<string, string | string[]>;

function queryOf(url: URL): Query {
  const query: Query = {};
  for (const [name, value] of url.searchParams) {
    const previous = query[name];
    if (previous === undefined) query[name] = value;
    else query[name] = Array.isArray(previous) ? [...previous, value] : [previous, value];
  }
  return query;
}

function lowerCased(headers: Readonly<Record<string, string>>): Record<string, string> {
  return Object.fromEntries(Object.entries(headers).map(([name, value]) => [name.toLowerCase(), value]));
}

export function createAwsSigv4Signer(entry: AwsSigv4Auth, deps: SignerDeps): Signer {
  const sessionToken =
    entry.sessionToken === undefined ? undefined : readHeaderSecret(entry.sessionToken, deps.env);
  const service = entry.service ?? DEFAULT_AWS_SERVICE;
  const signer = new SignatureV4({
    service,
    region: entry.region,
    credentials: {
      accessKeyId: readHeaderSecret(entry.accessKeyId, deps.env),
      secretAccessKey: readSecret(entry.secretAccessKey, deps.env),
      ...(sessionToken === undefined ? {} : { sessionToken }),
    },
    sha256: Hash.bind(null, 'sha256'),
    // The path arrives encoded once (`%3A` in Bedrock model ids); SigV4 wants the canonical
    // URI encoded again (`%253A`), which is what this option does.
    uriEscapePath: true,
    applyChecksum: true,
  });
  const now = deps.now ?? Date.now;
  const label = `aws-sigv4 (${service}, ${entry.region}, ${entry.accessKeyId})`;
  return {
    kind: 'aws-sigv4',
    async sign(request: SignableRequest): Promise<Record<string, string>> {
      const url = new URL(request.url);
      try {
        const signed = await signer.sign(
          {
            method: request.method,
            protocol: url.protocol,
            hostname: url.hostname,
            ...(url.port === '' ? {} : { port: Number(url.port) }),
            path: url.pathname,
            query: queryOf(url),
            headers: { ...ownHeaders(request), host: url.host },
            body: request.body,
          },
          { signingDate: new Date(now()) },
        );
        return lowerCased(signed.headers);
      } catch (error) {
        if (error instanceof CredentialError) throw error;
        // The library's message could quote the request; keep only its class.
        throw new CredentialError(
          `${label}: signing failed (${error instanceof Error ? error.name : 'error'})`,
        );
      }
    },
    close: async () => {},
  };
}
