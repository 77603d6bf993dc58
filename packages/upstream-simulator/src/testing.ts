/**
 * Credentials for requests sent straight to a running simulator in tests: a Google access token
 * from its token endpoint (the service account's signed assertion), and SigV4 over a request.
 */
import assert from 'node:assert/strict';
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import { importPKCS8, SignJWT } from 'jose';
import type { Simulator } from './server.ts';

export async function googleAccessToken(sim: Simulator): Promise<string> {
  const account = sim.credentials.googleServiceAccount;
  const now = Math.floor(Date.now() / 1000);
  const assertion = await new SignJWT({ scope: 'https://www.googleapis.com/auth/cloud-platform' })
    .setProtectedHeader({ alg: 'RS256', kid: account.private_key_id })
    .setIssuer(account.client_email)
    .setAudience(`${sim.url}/google/token`)
    .setIssuedAt(now)
    .setExpirationTime(now + 3600)
    .sign(await importPKCS8(account.private_key, 'RS256'));
  const response = await fetch(`${sim.url}/google/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer', assertion }),
  });
  return ((await response.json()) as { access_token: string }).access_token;
}

export interface PlainRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** The request's headers with SigV4 added for the simulator's AWS key (service `bedrock`). */
export async function sigV4Headers(sim: Simulator, request: PlainRequest): Promise<Record<string, string>> {
  const url = new URL(request.url);
  const { accessKeyId, secretAccessKey, region } = sim.credentials.aws;
  const signer = new SignatureV4({
    credentials: { accessKeyId, secretAccessKey },
    region,
    service: 'bedrock',
    sha256: Hash.bind(null, 'sha256'),
  });
  const signed = await signer.sign({
    method: request.method,
    protocol: url.protocol,
    hostname: url.hostname,
    port: Number(url.port),
    path: url.pathname,
    headers: { ...request.headers, host: url.host },
    body: request.body,
  });
  return signed.headers;
}

/** How an SDK call was refused: the status of the SDK's API error (0 when it has none) and its message. */
export async function refusal(call: Promise<unknown>): Promise<{ status: number; message: string }> {
  try {
    await call;
  } catch (error) {
    const status = (error as { status?: unknown }).status;
    return { status: typeof status === 'number' ? status : 0, message: String((error as Error).message) };
  }
  assert.fail('the call was not refused');
}
