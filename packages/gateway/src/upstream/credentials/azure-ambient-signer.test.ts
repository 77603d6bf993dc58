/**
 * Azure managed identity, really run offline: a local server stands in for App Service's
 * identity endpoint (IDENTITY_ENDPOINT + IDENTITY_HEADER), which MSAL (inside @azure/identity)
 * calls for ManagedIdentityCredential and for DefaultAzureCredential's managed identity step.
 * Both libraries read only process.env, hence withProcessEnv. MSAL keeps managed identity
 * tokens in one cache per process (by identity and resource), so each test asks for its own.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createAzureDefaultSigner, createAzureManagedIdentitySigner } from './azure-ambient-signer.ts';
import { CredentialError } from './signer.ts';
import {
  captureOutput,
  type LocalServer,
  request,
  sendJson,
  startServer,
  withProcessEnv,
} from './test-support.ts';

const IDENTITY_HEADER = 'app-service-identity-header-secret-1';
const dir = mkdtempSync(join(tmpdir(), 'azure-mi-'));

describe('azure ambient signers', () => {
  let issued: string[] = [];
  let refuse = false;
  let server: LocalServer;
  before(async () => {
    server = await startServer((req, res) => {
      if (req.headers['x-identity-header'] !== IDENTITY_HEADER || refuse)
        return sendJson(res, 400, { error: 'invalid_request', error_description: `bad ${IDENTITY_HEADER}` });
      const query = new URL(req.url, server.origin).searchParams;
      const token = `eyJ.mi-${issued.length + 1}.${query.get('client_id') ?? 'system'}`;
      issued.push(token);
      sendJson(res, 200, {
        access_token: token,
        expires_on: String(Math.floor(Date.now() / 1000) + 3600),
        resource: query.get('resource'),
        token_type: 'Bearer',
      });
    });
  });
  after(async () => {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const appService = () => ({
    IDENTITY_ENDPOINT: `${server.origin}/msi/token`,
    IDENTITY_HEADER,
    // DefaultAzureCredential's developer steps (Azure CLI, azd) must not find a sign-in here.
    AZURE_CONFIG_DIR: dir,
    HOME: dir,
  });
  const reset = (): void => {
    issued = [];
    refuse = false;
    server.requests.length = 0;
  };

  test('managed identity: a system-assigned token for the Cognitive Services resource, cached', async () => {
    reset();
    await withProcessEnv(appService(), async () => {
      const signer = createAzureManagedIdentitySigner({ type: 'azure-managed-identity' }, { env: {} });
      assert.equal(signer.kind, 'azure-managed-identity');
      const signed = await signer.sign(
        request({ headers: { 'api-key': 'client-key', 'content-type': 'application/json' } }),
      );
      assert.equal(signed.authorization, `Bearer ${issued[0]}`);
      assert.equal(signed['api-key'], undefined, 'never next to an api-key');
      const query = new URL(server.requests[0]?.url ?? '', server.origin).searchParams;
      assert.equal(query.get('resource'), 'https://cognitiveservices.azure.com');
      assert.equal(query.get('client_id'), null);
      await signer.sign(request());
      assert.equal(server.requests.length, 1, 'cached until it nears expiry');
      await signer.close();
    });
  });

  test('managed identity: a user-assigned identity by its client id', async () => {
    reset();
    await withProcessEnv(appService(), async () => {
      const clientId = '11111111-1111-1111-1111-111111111111';
      const signer = createAzureManagedIdentitySigner(
        { type: 'azure-managed-identity', clientId },
        { env: {} },
      );
      assert.equal((await signer.sign(request())).authorization, `Bearer eyJ.mi-1.${clientId}`);
      await signer.close();
    });
  });

  test('default credential: finds the managed identity when the environment names no other', async () => {
    reset();
    await withProcessEnv(appService(), async () => {
      const clientId = '22222222-2222-2222-2222-222222222222';
      const signer = createAzureDefaultSigner({ type: 'azure-default', clientId }, { env: {} });
      assert.equal(signer.kind, 'azure-default');
      assert.equal((await signer.sign(request())).authorization, `Bearer eyJ.mi-1.${clientId}`);
      await signer.close();
    });
  });

  test('a refused identity request is a CredentialError without the identity header or the answer', async () => {
    reset();
    refuse = true;
    const texts: string[] = [];
    const output = await captureOutput(async () => {
      await withProcessEnv(appService(), async () => {
        const signer = createAzureManagedIdentitySigner(
          { type: 'azure-managed-identity', scope: 'https://refused.example/.default' },
          { env: {} },
        );
        await assert.rejects(signer.sign(request()), (error: Error) => {
          texts.push(error.message, String(error.stack));
          return (
            error instanceof CredentialError &&
            error.message.startsWith('azure-managed-identity (system-assigned): token request failed')
          );
        });
        await signer.close();
      });
    });
    for (const text of [...texts, output]) assert.ok(!text.includes(IDENTITY_HEADER), text.slice(0, 200));
  });
});
