/**
 * AWS Signature Version 4 with @smithy/signature-v4, shared by the static-key and the
 * default-chain signers. The signature covers the exact method, host, path, query, headers
 * and body that will be sent, so signing must be the last step before the transport.
 */
import type { SignatureV4 } from '@smithy/signature-v4';
import { smithySigV4 } from './libraries.ts';
import { ownHeaders } from './request-headers.ts';
import { CredentialError, type SignableRequest } from './signer.ts';

/** An access key pair, with the session token of temporary credentials. */
export type AwsCredentials = Extract<
  ConstructorParameters<typeof SignatureV4>[0]['credentials'],
  { accessKeyId: string }
>;

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

/** Loads @smithy/signature-v4 on first use (libraries.ts). */
export async function createSignatureV4(
  credentials: AwsCredentials,
  service: string,
  region: string,
): Promise<SignatureV4> {
  const { SignatureV4, Hash } = await smithySigV4();
  return new SignatureV4({
    service,
    region,
    credentials,
    sha256: Hash.bind(null, 'sha256'),
    // The path arrives encoded once (`%3A` in Bedrock model ids); SigV4 wants the canonical
    // URI encoded again (`%253A`), which is what this option does.
    uriEscapePath: true,
    applyChecksum: true,
  });
}

/** The request's headers plus `authorization`, `x-amz-date` (and the session token), lower-cased. */
export async function signSigV4(
  signer: SignatureV4,
  request: SignableRequest,
  signingDate: Date,
  label: string,
): Promise<Record<string, string>> {
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
      { signingDate },
    );
    return lowerCased(signed.headers);
  } catch (error) {
    if (error instanceof CredentialError) throw error;
    // The library's message could quote the request; keep only its class.
    throw new CredentialError(`${label}: signing failed (${error instanceof Error ? error.name : 'error'})`);
  }
}
