/**
 * The AWS default chain, really run offline: the ECS/EKS container credential source
 * (AWS_CONTAINER_CREDENTIALS_FULL_URI + AWS_CONTAINER_AUTHORIZATION_TOKEN) is a local server
 * handing out temporary credentials, and a fake Bedrock server recomputes each signature with
 * the credentials it knows. The SDK reads only process.env, hence withProcessEnv.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { tmpdir } from 'node:os';
import { after, before, describe, test } from 'node:test';
import { Hash } from '@smithy/hash-node';
import { SignatureV4 } from '@smithy/signature-v4';
import { createAwsDefaultChainSigner } from './aws-default-chain-signer.ts';
import type { AwsDefaultChainAuth } from './schema.ts';
import { CredentialError, type Signer } from './signer.ts';
import {
  type LocalServer,
  type RecordedRequest,
  captureOutput,
  sendJson,
  startServer,
  withProcessEnv,
} from './test-support.ts';

interface Issued {
  readonly AccessKeyId: string;
  readonly SecretAccessKey: string;
  readonly Token: string;
  readonly Expiration: string;
}

const CONTAINER_TOKEN = 'container-authorization-token-1';
const entry: AwsDefaultChainAuth = { type: 'aws-default-chain' };
/** No shared config files and no instance metadata: only what a test sets up is found. */
const nowhere = join(tmpdir(), `no-aws-config-${randomBytes(4).toString('hex')}`);
const isolated = {
  AWS_CONFIG_FILE: nowhere,
  AWS_SHARED_CREDENTIALS_FILE: nowhere,
  AWS_EC2_METADATA_DISABLED: 'true',
};

/** Temporary credentials as the container endpoint serves them, expiring in `ttlMs`. */
function issue(ttlMs: number): Issued {
  return {
    AccessKeyId: `ASIA${randomBytes(8).toString('hex').toUpperCase()}`,
    SecretAccessKey: randomBytes(30).toString('base64'),
    Token: `session-${randomBytes(24).toString('base64url')}`,
    Expiration: new Date(Date.now() + ttlMs).toISOString(),
  };
}

const AUTH =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, SignedHeaders=([^,]+), Signature=([0-9a-f]{64})$/;

/** The access key id whose secret reproduces the request's signature (and session token), or a reason. */
async function verify(request: RecordedRequest, known: readonly Issued[]): Promise<string> {
  const match = AUTH.exec(String(request.headers.authorization ?? ''));
  if (!match) return 'no SigV4 authorization';
  const [, keyId, , region = '', service = '', signed = '', signature] = match;
  const issued = known.find((candidate) => candidate.AccessKeyId === keyId);
  if (!issued) return `unknown key ${keyId}`;
  if (request.headers['x-amz-security-token'] !== issued.Token) return 'wrong session token';
  const names = signed.split(';');
  const headers = Object.fromEntries(names.map((name) => [name, String(request.headers[name] ?? '')]));
  const date = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(headers['x-amz-date'] ?? '');
  if (!date) return 'no x-amz-date';
  const [, y, mo, d, h, mi, s] = date.map(Number);
  const [path = '/'] = request.url.split('?');
  const recomputed = await new SignatureV4({
    credentials: { accessKeyId: issued.AccessKeyId, secretAccessKey: issued.SecretAccessKey },
    region,
    service,
    sha256: Hash.bind(null, 'sha256'),
    applyChecksum: false,
  }).sign(
    {
      method: request.method,
      protocol: 'http:',
      hostname: headers.host ?? '',
      path,
      headers,
      body: request.body,
    },
    {
      signingDate: new Date(Date.UTC(y ?? 0, (mo ?? 1) - 1, d, h, mi, s)),
      signableHeaders: new Set(names),
    },
  );
  const expected = /Signature=([0-9a-f]{64})/.exec(String(recomputed.headers.authorization))?.[1];
  return expected === signature ? issued.AccessKeyId : 'signature mismatch';
}

describe('aws-default-chain signer', () => {
  let issued: Issued[] = [];
  /** What the container endpoint hands out next (each request takes the next one). */
  let queue: Array<() => Issued> = [];
  let container: LocalServer;
  let bedrock: LocalServer;
  before(async () => {
    container = await startServer((req, res) => {
      if (req.headers.authorization !== CONTAINER_TOKEN) {
        sendJson(res, 401, { Code: 'AccessDenied', Message: 'bad token' });
        return;
      }
      const next = queue.shift()?.();
      if (!next) return sendJson(res, 500, { Code: 'Exhausted' });
      issued.push(next);
      sendJson(res, 200, { Code: 'Success', Type: 'AWS-HMAC', ...next });
    });
    bedrock = await startServer((req, res) => {
      void verify(req, issued).then((result) =>
        result.startsWith('ASIA')
          ? sendJson(res, 200, { signedWith: result })
          : sendJson(res, 403, { message: result }),
      );
    });
  });
  after(async () => {
    await container.close();
    await bedrock.close();
  });
  const containerEnv = () => ({
    ...isolated,
    AWS_CONTAINER_CREDENTIALS_FULL_URI: `${container.origin}/v2/credentials/task`,
    AWS_CONTAINER_AUTHORIZATION_TOKEN: CONTAINER_TOKEN,
  });
  const reset = (...next: Array<() => Issued>): void => {
    issued = [];
    queue = next;
    container.requests.length = 0;
  };

  /** Signs a Bedrock request with `signer` and sends it to the fake Bedrock server. */
  async function call(signer: Signer): Promise<{ status: number; signedWith?: string; message?: string }> {
    const url = `${bedrock.origin}/model/global.anthropic.claude-sonnet-4-5-20250929-v1%3A0/converse`;
    const body = '{"messages":[{"role":"user","content":[{"text":"hi"}]}]}';
    const headers = await signer.sign({
      method: 'POST',
      url,
      headers: { 'content-type': 'application/json' },
      body,
    });
    const response = await fetch(url, { method: 'POST', headers, body });
    return { status: response.status, ...((await response.json()) as object) };
  }

  test('signs with the container credentials, asking the provider for each request', async () => {
    reset(() => issue(3_600_000));
    await withProcessEnv(containerEnv(), async () => {
      const signer = createAwsDefaultChainSigner(entry, { env: {}, region: 'us-east-1' });
      const first = await call(signer);
      assert.deepEqual(first, { status: 200, signedWith: issued[0]?.AccessKeyId });
      assert.equal((await call(signer)).signedWith, issued[0]?.AccessKeyId);
      assert.equal(container.requests.length, 1, 'the SDK memoizes credentials that are not near expiry');
      assert.equal(container.requests[0]?.headers.authorization, CONTAINER_TOKEN);
      await signer.close();
      await assert.rejects(call(signer), CredentialError);
    });
  });

  test('the credential scope is the endpoint region unless auth sets one', async () => {
    reset(
      () => issue(3_600_000),
      () => issue(3_600_000),
    );
    await withProcessEnv(containerEnv(), async () => {
      const fromEndpoint = createAwsDefaultChainSigner(entry, { env: {}, region: 'eu-west-3' });
      const request = { method: 'POST' as const, url: `${bedrock.origin}/x`, headers: {}, body: '' };
      assert.match(
        (await fromEndpoint.sign(request)).authorization ?? '',
        /\/eu-west-3\/bedrock\/aws4_request/,
      );
      const own = createAwsDefaultChainSigner(
        { ...entry, region: 'ap-south-1', service: 'execute-api' },
        { env: {}, region: 'eu-west-3' },
      );
      assert.match((await own.sign(request)).authorization ?? '', /\/ap-south-1\/execute-api\/aws4_request/);
    });
    assert.throws(
      () => createAwsDefaultChainSigner(entry, { env: {} }),
      (error: Error) => error instanceof CredentialError && /no region to sign for/.test(error.message),
    );
  });

  test('credentials near expiry are replaced before they expire, expired ones at once', async () => {
    // Within the SDK's five-minute window: still used, replaced in the background.
    reset(
      () => issue(120_000),
      () => issue(3_600_000),
    );
    await withProcessEnv(containerEnv(), async () => {
      const signer = createAwsDefaultChainSigner(entry, { env: {}, region: 'us-east-1' });
      const [soon] = [(await call(signer)).signedWith];
      assert.equal(soon, issued[0]?.AccessKeyId);
      assert.equal((await call(signer)).signedWith, soon, 'still valid: used while the refresh runs');
      // The container has answered the refresh once issued[1] exists; the SDK adopts it a few
      // ticks later, so the signer is asked until it signs with something else (1 s at most).
      let fresh = await call(signer);
      for (let i = 0; i < 100 && fresh.signedWith === soon; i++) {
        await new Promise((r) => setTimeout(r, 10));
        fresh = await call(signer);
      }
      assert.equal(fresh.status, 200);
      assert.equal(fresh.signedWith, issued[1]?.AccessKeyId);
      assert.notEqual(fresh.signedWith, soon);
    });
    // Credentials that have expired are never sent: the next request waits for new ones.
    reset(
      () => issue(1_000),
      () => issue(3_600_000),
    );
    await withProcessEnv(containerEnv(), async () => {
      const signer = createAwsDefaultChainSigner(entry, { env: {}, region: 'us-east-1' });
      const short = (await call(signer)).signedWith;
      assert.equal(short, issued[0]?.AccessKeyId);
      await new Promise((resolve) => setTimeout(resolve, 1_100));
      const next = await call(signer);
      assert.deepEqual(next, { status: 200, signedWith: issued[1]?.AccessKeyId });
      assert.equal(container.requests.length, 2);
    });
  });

  test('no credentials anywhere is a CredentialError that names the chain, not a secret', async () => {
    reset();
    const output = await captureOutput(async () => {
      await withProcessEnv(isolated, async () => {
        const signer = createAwsDefaultChainSigner(
          { ...entry, profile: 'bedrock' },
          { env: {}, region: 'us-east-1' },
        );
        await assert.rejects(
          signer.sign({ method: 'POST', url: `${bedrock.origin}/x`, headers: {}, body: '' }),
          (error: Error) =>
            error instanceof CredentialError &&
            /^aws-default-chain \(bedrock, us-east-1, profile bedrock\): no credentials could be obtained/.test(
              error.message,
            ),
        );
      });
    });
    assert.ok(!output.includes(CONTAINER_TOKEN));
  });

  test('an aborted request stops waiting for credentials', async () => {
    const never = (): Promise<never> => new Promise(() => {});
    const signer = createAwsDefaultChainSigner(entry, { env: {}, region: 'us-east-1', provider: never });
    const controller = new AbortController();
    const pending = signer.sign(
      { method: 'POST', url: `${bedrock.origin}/x`, headers: {}, body: '' },
      controller.signal,
    );
    controller.abort(new Error('client went away'));
    await assert.rejects(pending, /client went away/);
  });
});
