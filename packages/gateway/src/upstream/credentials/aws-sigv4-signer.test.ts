import assert from 'node:assert/strict';
import { createHash, createHmac } from 'node:crypto';
import { describe, test } from 'node:test';
import { createAwsSigv4Signer } from './aws-sigv4-signer.ts';
import type { AwsSigv4Auth } from './schema.ts';
import { CredentialError, type SignableRequest } from './signer.ts';

const env = {
  AWS_ACCESS_KEY_ID: 'AKIDEXAMPLE',
  AWS_SECRET_ACCESS_KEY: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
  AWS_SESSION_TOKEN: 'session-token-value',
};
const entry: AwsSigv4Auth = {
  type: 'aws-sigv4',
  region: 'us-east-1',
  accessKeyId: 'env:AWS_ACCESS_KEY_ID',
  secretAccessKey: 'env:AWS_SECRET_ACCESS_KEY',
};
const fixedNow = Date.UTC(2026, 10, 23, 12, 34, 56);
const bedrock: SignableRequest = {
  method: 'POST',
  url: 'https://bedrock-runtime.us-east-1.amazonaws.com/model/us.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse',
  headers: { 'Content-Type': 'application/json', Accept: 'application/json' },
  body: '{"messages":[{"role":"user","content":[{"text":"hi"}]}]}',
};

const sha256 = (data: string): string => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: Buffer | string, data: string): Buffer =>
  createHmac('sha256', key).update(data, 'utf8').digest();
/** RFC 3986 encoding as SigV4 wants it (unreserved characters kept). */
const rfc3986 = (text: string): string =>
  encodeURIComponent(text).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);

/**
 * SigV4 recomputed from the AWS documentation, over the request as it goes on the wire and the
 * headers the signer says it signed. Each path segment, already encoded once, is encoded again.
 */
function expectedSignature(
  request: SignableRequest,
  sent: Record<string, string>,
  secret: string,
  region: string,
): string {
  const url = new URL(request.url);
  const signedHeaders = /SignedHeaders=([^,]+)/.exec(sent.authorization ?? '')?.[1] ?? '';
  const names = signedHeaders.split(';');
  const canonicalUri = url.pathname.split('/').map(rfc3986).join('/');
  const canonicalQuery = [...url.searchParams]
    .map(([k, v]) => [rfc3986(k), rfc3986(v)])
    .sort(([a, x], [b, y]) => (a === b ? (x! < y! ? -1 : 1) : a! < b! ? -1 : 1))
    .map(([k, v]) => `${k}=${v}`)
    .join('&');
  const canonicalHeaders = names.map((name) => `${name}:${(sent[name] ?? '').trim()}\n`).join('');
  const canonicalRequest = [
    request.method,
    canonicalUri,
    canonicalQuery,
    canonicalHeaders,
    signedHeaders,
    sha256(request.body),
  ].join('\n');
  const amzDate = sent['x-amz-date'] ?? '';
  const scope = `${amzDate.slice(0, 8)}/${region}/bedrock/aws4_request`;
  const stringToSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonicalRequest)].join('\n');
  let key = hmac(`AWS4${secret}`, amzDate.slice(0, 8));
  for (const part of [region, 'bedrock', 'aws4_request']) key = hmac(key, part);
  return hmac(key, stringToSign).toString('hex');
}

const signatureOf = (headers: Record<string, string>): string =>
  /Signature=([0-9a-f]{64})/.exec(headers.authorization ?? '')?.[1] ?? '';

describe('aws-sigv4 signer', () => {
  test('signs a Bedrock request (model id with %3A) verifiably', async () => {
    const signer = createAwsSigv4Signer(entry, { env, now: () => fixedNow });
    const headers = await signer.sign(bedrock);
    assert.equal(headers['x-amz-date'], '20261123T123456Z');
    assert.equal(headers.host, 'bedrock-runtime.us-east-1.amazonaws.com');
    assert.equal(headers['x-amz-content-sha256'], sha256(bedrock.body));
    assert.equal(headers['content-type'], 'application/json');
    assert.match(
      headers.authorization ?? '',
      /^AWS4-HMAC-SHA256 Credential=AKIDEXAMPLE\/20261123\/us-east-1\/bedrock\/aws4_request, SignedHeaders=[^,]*content-type;host;x-amz-content-sha256;x-amz-date, Signature=/,
    );
    assert.equal(
      signatureOf(headers),
      expectedSignature(bedrock, headers, env.AWS_SECRET_ACCESS_KEY, 'us-east-1'),
    );
    assert.equal(headers['x-amz-security-token'], undefined);
  });

  test('a body change breaks the signature', async () => {
    const signer = createAwsSigv4Signer(entry, { env, now: () => fixedNow });
    const headers = await signer.sign(bedrock);
    const tampered = { ...bedrock, body: bedrock.body.replace('hi', 'ho') };
    assert.notEqual(
      signatureOf(headers),
      expectedSignature(tampered, headers, env.AWS_SECRET_ACCESS_KEY, 'us-east-1'),
    );
    // The path as sent matters too: a raw ':' is a different canonical URI.
    const rawColon = { ...bedrock, url: bedrock.url.replace('%3A', ':') };
    assert.notEqual(
      signatureOf(headers),
      expectedSignature(rawColon, headers, env.AWS_SECRET_ACCESS_KEY, 'us-east-1'),
    );
  });

  test('session credentials add x-amz-security-token (signed); query strings are signed', async () => {
    const signer = createAwsSigv4Signer(
      { ...entry, sessionToken: 'env:AWS_SESSION_TOKEN' },
      { env, now: () => fixedNow },
    );
    const withQuery = { ...bedrock, url: `${bedrock.url}?b=2&a=x%20y&a=1` };
    const headers = await signer.sign(withQuery);
    assert.equal(headers['x-amz-security-token'], env.AWS_SESSION_TOKEN);
    assert.match(headers.authorization ?? '', /SignedHeaders=[^,]*x-amz-security-token/);
    assert.equal(
      signatureOf(headers),
      expectedSignature(withQuery, headers, env.AWS_SECRET_ACCESS_KEY, 'us-east-1'),
    );
  });

  test('stale credential headers from the request are replaced', async () => {
    const signer = createAwsSigv4Signer(entry, { env, now: () => fixedNow });
    const headers = await signer.sign({
      ...bedrock,
      headers: { ...bedrock.headers, 'X-Amz-Date': '20000101T000000Z', Authorization: 'x' },
    });
    assert.equal(headers['x-amz-date'], '20261123T123456Z');
    assert.equal(Object.keys(headers).filter((name) => name.toLowerCase() === 'x-amz-date').length, 1);
  });

  test('missing credentials fail at creation, naming the location', () => {
    assert.throws(
      () => createAwsSigv4Signer(entry, { env: { AWS_ACCESS_KEY_ID: 'AKID' } }),
      (error: unknown) => error instanceof CredentialError && /env:AWS_SECRET_ACCESS_KEY/.test(error.message),
    );
  });
});
