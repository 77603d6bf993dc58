/**
 * SigV4 as AWS checks it: the Authorization header names a known access key scoped to this
 * region and the `bedrock` service, `x-amz-date` is within 15 minutes, and the signature,
 * recomputed with the secret over the request exactly as received (method, escaped path,
 * query, the signed headers, the body bytes), matches.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import type { SimContext, SimExchange } from './types.ts';

export interface AwsRefusal {
  readonly status: number;
  readonly type: string;
  readonly message: string;
}

const SERVICE = 'bedrock';
/** The hash constructor the AWS SDK itself gives SigV4. */
const Sha256 = Hash.bind(null, 'sha256');
const MAX_SKEW_MS = 15 * 60 * 1000;
const AUTH_PATTERN =
  /^AWS4-HMAC-SHA256 Credential=([^/\s,]+)\/(\d{8})\/([^/\s,]+)\/([^/\s,]+)\/aws4_request,\s*SignedHeaders=([a-z0-9;-]+),\s*Signature=([0-9a-f]{64})$/;
const MISMATCH =
  'The request signature we calculated does not match the signature you provided. Check your AWS Secret Access Key and signing method. Consult the service documentation for details.';

interface Authorization {
  readonly accessKeyId: string;
  readonly date: string;
  readonly region: string;
  readonly service: string;
  readonly signedHeaders: readonly string[];
  readonly signature: string;
}

function headerValue(exchange: SimExchange, name: string): string | undefined {
  const value = exchange.req.headers[name];
  return Array.isArray(value) ? value.join(',') : value;
}

function parseAuthorization(header: string): Authorization | undefined {
  const match = AUTH_PATTERN.exec(header.trim());
  if (!match) return undefined;
  const [, accessKeyId = '', date = '', region = '', service = '', signed = '', signature = ''] = match;
  return { accessKeyId, date, region, service, signedHeaders: signed.split(';'), signature };
}

/** `20260101T120000Z` -> a Date; undefined when it is not one. */
function amzDate(value: string | undefined): Date | undefined {
  const match = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value ?? '');
  if (!match) return undefined;
  const [, y, mo, d, h, mi, s] = match.map(Number);
  const date = new Date(Date.UTC(y ?? 0, (mo ?? 1) - 1, d ?? 0, h ?? 0, mi ?? 0, s ?? 0));
  return Number.isNaN(date.getTime()) ? undefined : date;
}

function refusal(status: number, type: string, message: string): AwsRefusal {
  return { status, type, message };
}

/** The scope and freshness checks AWS makes before it looks at the signature. */
function scopeRefusal(
  context: SimContext,
  exchange: SimExchange,
  auth: Authorization,
): AwsRefusal | undefined {
  const aws = context.credentials.aws;
  // The simulator issues no session credentials, so any session token is one it never made.
  if (auth.accessKeyId !== aws.accessKeyId || headerValue(exchange, 'x-amz-security-token') !== undefined)
    return refusal(
      403,
      'UnrecognizedClientException',
      'The security token included in the request is invalid.',
    );
  if (auth.region !== aws.region)
    return refusal(403, 'InvalidSignatureException', `Credential should be scoped to a valid region. `);
  if (auth.service !== SERVICE)
    return refusal(
      403,
      'InvalidSignatureException',
      `Credential should be scoped to correct service: '${SERVICE}'. `,
    );
  if (!auth.signedHeaders.includes('host'))
    return refusal(
      403,
      'InvalidSignatureException',
      "'Host' must be a 'SignedHeader' in the AWS Authorization.",
    );
  const signedAt = amzDate(headerValue(exchange, 'x-amz-date'));
  if (signedAt === undefined || !auth.signedHeaders.includes('x-amz-date'))
    return refusal(
      403,
      'IncompleteSignatureException',
      'Authorization header requires a signed x-amz-date header.',
    );
  if (Math.abs(Date.now() - signedAt.getTime()) > MAX_SKEW_MS)
    return refusal(
      403,
      'InvalidSignatureException',
      'Signature expired: the request time is more than 15 minutes from the server time.',
    );
  if (!headerValue(exchange, 'x-amz-date')?.startsWith(auth.date))
    return refusal(
      403,
      'InvalidSignatureException',
      'Credential should be scoped to the date of the request.',
    );
  const contentHash = headerValue(exchange, 'x-amz-content-sha256');
  if (
    contentHash !== undefined &&
    contentHash !== createHash('sha256').update(exchange.rawBody).digest('hex')
  )
    return refusal(
      400,
      'XAmzContentSHA256Mismatch',
      "The provided 'x-amz-content-sha256' header does not match what was computed.",
    );
  return undefined;
}

async function expectedSignature(
  context: SimContext,
  exchange: SimExchange,
  auth: Authorization,
  signedAt: Date,
) {
  const headers: Record<string, string> = {};
  for (const name of auth.signedHeaders) headers[name] = headerValue(exchange, name) ?? '';
  const query: Record<string, string | string[]> = {};
  for (const key of new Set(exchange.query.keys())) {
    const values = exchange.query.getAll(key);
    query[key] = values.length === 1 ? (values[0] ?? '') : values;
  }
  const { accessKeyId, secretAccessKey, region } = context.credentials.aws;
  const signer = new SignatureV4({
    credentials: { accessKeyId, secretAccessKey },
    region,
    service: SERVICE,
    sha256: Sha256,
    // The client chose what to sign; adding a payload-hash header here would change the set.
    applyChecksum: false,
  });
  const hostHeader = headers.host ?? '';
  const signed = await signer.sign(
    {
      method: exchange.method,
      protocol: 'http:',
      hostname: hostHeader,
      path: exchange.path,
      query,
      headers,
      body: exchange.rawBody,
    },
    { signingDate: signedAt, signableHeaders: new Set(auth.signedHeaders) },
  );
  const authorization = String(signed.headers.authorization ?? '');
  return /Signature=([0-9a-f]{64})/.exec(authorization)?.[1] ?? '';
}

/** Undefined when the request is signed with this simulator's key; else AWS's refusal. */
export async function verifySigV4(
  context: SimContext,
  exchange: SimExchange,
): Promise<AwsRefusal | undefined> {
  const header = headerValue(exchange, 'authorization');
  if (header === undefined)
    return refusal(403, 'MissingAuthenticationTokenException', 'Missing Authentication Token');
  const auth = parseAuthorization(header);
  if (auth === undefined)
    return refusal(
      403,
      'IncompleteSignatureException',
      'Authorization header requires Credential, SignedHeaders and Signature.',
    );
  const scope = scopeRefusal(context, exchange, auth);
  if (scope !== undefined) return scope;
  const signedAt = amzDate(headerValue(exchange, 'x-amz-date')) ?? new Date(0);
  const expected = Buffer.from(await expectedSignature(context, exchange, auth, signedAt));
  const given = Buffer.from(auth.signature);
  if (expected.length !== given.length || !timingSafeEqual(expected, given))
    return refusal(403, 'InvalidSignatureException', MISMATCH);
  return undefined;
}
