/**
 * Google application default credentials, really run offline: a local server stands in for
 * the GCE metadata server (GCE_METADATA_HOST) and for Google's STS endpoint of a workload
 * identity federation file (GOOGLE_APPLICATION_CREDENTIALS). google-auth-library reads only
 * process.env, hence withProcessEnv.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createGoogleAdcSigner } from './google-adc-signer.ts';
import { REDACTED, SecretRedactor } from './secret-redactor.ts';
import { CredentialError } from './signer.ts';
import {
  captureOutput,
  type LocalServer,
  request,
  sendJson,
  startServer,
  withProcessEnv,
} from './test-support.ts';

const dir = mkdtempSync(join(tmpdir(), 'google-adc-'));
const SUBJECT_TOKEN = 'oidc-subject-token-from-the-platform-1';
/** An empty gcloud config directory: no developer sign-in is found. */
const noGcloud = { CLOUDSDK_CONFIG: dir, GOOGLE_CLOUD_PROJECT: 'adc-project' };

describe('google-adc signer', () => {
  let lifetimes: number[] = [];
  let issued: string[] = [];
  let server: LocalServer;
  const nextToken = (): { access_token: string; expires_in: number; token_type: string } => {
    const token = `ya29.adc-${issued.length + 1}`;
    issued.push(token);
    return { access_token: token, expires_in: lifetimes.shift() ?? 3600, token_type: 'Bearer' };
  };
  before(async () => {
    server = await startServer((req, res) => {
      const path = req.url.split('?')[0];
      if (path === '/v1/token' && req.method === 'POST') {
        const form = new URLSearchParams(req.body);
        if (form.get('subject_token') !== SUBJECT_TOKEN)
          return sendJson(res, 400, { error: 'invalid_grant' });
        return sendJson(res, 200, {
          ...nextToken(),
          issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
        });
      }
      // The metadata server answers only requests that carry Metadata-Flavor: Google.
      if (req.headers['metadata-flavor'] !== 'Google') return sendJson(res, 403, {});
      res.setHeader('metadata-flavor', 'Google');
      if (path === '/computeMetadata/v1/instance') return sendJson(res, 200, {});
      if (path === '/computeMetadata/v1/instance/service-accounts/default/token')
        return sendJson(res, 200, nextToken());
      sendJson(res, 404, {});
    });
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const metadataEnv = () => ({ ...noGcloud, GCE_METADATA_HOST: server.origin.replace('http://', '') });
  const reset = (...next: number[]): void => {
    lifetimes = next;
    issued = [];
    server.requests.length = 0;
  };

  test('gets a token from the metadata server, with the scopes, and sends it as Bearer', async () => {
    reset();
    const { GOOGLE_CLOUD_PROJECT: _, ...withoutProject } = metadataEnv();
    await withProcessEnv(withoutProject, async () => {
      const signer = createGoogleAdcSigner({ type: 'google-adc' }, { env: {}, project: 'contoso-gw-prod' });
      const signed = await signer.sign(request({ headers: { authorization: 'Bearer client-token' } }));
      assert.equal(signed.authorization, `Bearer ${issued[0]}`);
      const tokenCall = server.requests.find((r) => r.url.includes('/service-accounts/default/token'));
      assert.equal(
        new URL(tokenCall?.url ?? '', server.origin).searchParams.get('scopes'),
        'https://www.googleapis.com/auth/cloud-platform',
      );
      assert.equal(
        (await signer.sign(request())).authorization,
        `Bearer ${issued[0]}`,
        'cached by the library',
      );
      assert.ok(!server.requests.some((r) => r.url.includes('project')), "the endpoint's project is used");
      assert.equal(issued.length, 1);
      await signer.close();
      await assert.rejects(signer.sign(request()), CredentialError);
    });
  });

  test('a token with less than five minutes left is replaced before it is sent again', async () => {
    reset(200, 3600);
    const secrets = new SecretRedactor();
    await withProcessEnv(metadataEnv(), async () => {
      const signer = createGoogleAdcSigner(
        { type: 'google-adc', scopes: ['scope-a', 'scope-b'] },
        { env: {}, secrets },
      );
      assert.equal((await signer.sign(request())).authorization, 'Bearer ya29.adc-1');
      assert.equal((await signer.sign(request())).authorization, 'Bearer ya29.adc-2');
      assert.equal((await signer.sign(request())).authorization, 'Bearer ya29.adc-2');
      assert.ok(server.requests.some((r) => r.url.includes('scopes=scope-a%2Cscope-b')));
    });
    const echoed = secrets.redact('tokens ya29.adc-1 and ya29.adc-2');
    assert.equal(echoed, `tokens ${REDACTED} and ${REDACTED}`, 'each token obtained is redacted');
  });

  test('a workload identity federation file in GOOGLE_APPLICATION_CREDENTIALS is exchanged at its token_url', async () => {
    reset();
    const subject = join(dir, 'subject-token');
    writeFileSync(subject, SUBJECT_TOKEN);
    const file = join(dir, 'external-account.json');
    writeFileSync(
      file,
      JSON.stringify({
        type: 'external_account',
        audience: '//iam.googleapis.com/projects/123/locations/global/workloadIdentityPools/gw/providers/k8s',
        subject_token_type: 'urn:ietf:params:oauth:token-type:jwt',
        token_url: `${server.origin}/v1/token`,
        credential_source: { file: subject },
      }),
    );
    await withProcessEnv({ ...noGcloud, GOOGLE_APPLICATION_CREDENTIALS: file }, async () => {
      const signer = createGoogleAdcSigner({ type: 'google-adc' }, { env: {} });
      assert.equal((await signer.sign(request())).authorization, `Bearer ${issued[0]}`);
      const exchange = new URLSearchParams(server.requests[0]?.body);
      assert.equal(exchange.get('grant_type'), 'urn:ietf:params:oauth:grant-type:token-exchange');
      assert.equal(exchange.get('scope'), 'https://www.googleapis.com/auth/cloud-platform');
    });
  });

  test('no credentials anywhere is a CredentialError; the next request looks again', async () => {
    reset();
    const output = await captureOutput(async () => {
      const signer = await withProcessEnv({ ...noGcloud, METADATA_SERVER_DETECTION: 'none' }, async () => {
        const created = createGoogleAdcSigner({ type: 'google-adc' }, { env: {} });
        await assert.rejects(
          created.sign(request()),
          (error: Error) =>
            error instanceof CredentialError &&
            error.message ===
              'google-adc (application default credentials): no access token could be obtained',
        );
        return created;
      });
      // The metadata server comes up (or the environment is fixed): the same signer finds it.
      await withProcessEnv(metadataEnv(), async () => {
        assert.equal((await signer.sign(request())).authorization, `Bearer ${issued[0]}`);
      });
    });
    assert.ok(!output.includes('ya29.'), 'no token in the output');
  });
});
