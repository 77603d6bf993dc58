import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { AccessToken, TokenCredential } from '@azure/identity';
import { createAzureEntraSigner } from './azure-entra-signer.ts';
import type { AzureEntraAuth } from './schema.ts';
import { CredentialError } from './signer.ts';
import {
  eventually,
  forwardingHttpClient,
  type LocalServer,
  manualClock,
  request,
  sendJson,
  startServer,
} from './test-support.ts';

const AUTHORITY = 'https://login.test';
const SECRET = 'entra-client-secret-value';

const entry: AzureEntraAuth = {
  type: 'azure-entra',
  tenantId: 'tenant-1',
  clientId: 'client-1',
  clientSecret: 'env:AZURE_CLIENT_SECRET',
  authorityHost: AUTHORITY,
};

describe('azure-entra signer with ClientSecretCredential', () => {
  let server: LocalServer;
  let deny = false;
  let issued = 0;
  before(async () => {
    server = await startServer((req, res) => {
      if (req.url === '/tenant-1/v2.0/.well-known/openid-configuration') {
        const base = `${AUTHORITY}/tenant-1`;
        sendJson(res, 200, {
          token_endpoint: `${base}/oauth2/v2.0/token`,
          authorization_endpoint: `${base}/oauth2/v2.0/authorize`,
          issuer: `${base}/v2.0`,
          jwks_uri: `${base}/discovery/v2.0/keys`,
        });
        return;
      }
      const form = new URLSearchParams(req.body);
      const ok =
        req.url.startsWith('/tenant-1/oauth2/v2.0/token') &&
        form.get('grant_type') === 'client_credentials' &&
        form.get('client_id') === 'client-1' &&
        form.get('client_secret') === SECRET &&
        form.get('scope') === 'https://cognitiveservices.azure.com/.default';
      if (deny || !ok) {
        sendJson(res, 401, {
          error: 'invalid_client',
          error_description: 'AADSTS7000215: Invalid client secret provided.',
        });
        return;
      }
      sendJson(res, 200, { token_type: 'Bearer', expires_in: 3599, access_token: `entra-token-${++issued}` });
    });
  });
  after(() => server.close());

  const tokenRequests = (): number =>
    server.requests.filter((r) => r.url.includes('/oauth2/v2.0/token')).length;

  test('gets a token for the default scope and reuses it', async () => {
    const signer = createAzureEntraSigner(entry, {
      env: { AZURE_CLIENT_SECRET: SECRET },
      httpClient: forwardingHttpClient(server.origin),
    });
    const first = await signer.sign(
      request({ headers: { 'api-key': 'stray', 'Content-Type': 'application/json' } }),
    );
    assert.match(first.authorization ?? '', /^Bearer entra-token-\d+$/);
    assert.equal(first['api-key'], undefined, 'never both api-key and Authorization');
    assert.deepEqual(
      await signer.sign(request({ headers: { 'api-key': 'stray', 'Content-Type': 'application/json' } })),
      first,
    );
    assert.equal(tokenRequests(), 1);
    await signer.close();
  });

  test('a rejected secret is a CredentialError without the secret', async () => {
    deny = true;
    try {
      const signer = createAzureEntraSigner(entry, {
        env: { AZURE_CLIENT_SECRET: SECRET },
        httpClient: forwardingHttpClient(server.origin),
      });
      const error = await signer.sign(request()).then(
        () => assert.fail('expected a rejection'),
        (rejection: unknown) => rejection,
      );
      assert.ok(error instanceof CredentialError);
      assert.match(
        error.message,
        /azure-entra \(tenant tenant-1, client client-1, env:AZURE_CLIENT_SECRET\): token request failed \(HTTP 401, invalid_client\)/,
      );
      for (const text of [error.message, String(error.stack), JSON.stringify(error)])
        assert.ok(!text.includes(SECRET));
    } finally {
      deny = false;
    }
  });

  test('a missing client secret fails at creation, naming the location', () => {
    assert.throws(
      () => createAzureEntraSigner(entry, { env: {} }),
      (error: unknown) => error instanceof CredentialError && /env:AZURE_CLIENT_SECRET/.test(error.message),
    );
  });
});

describe('azure-entra signer with an injected TokenCredential', () => {
  function fakeCredential(): TokenCredential & { scopes: string[] } {
    const scopes: string[] = [];
    return {
      scopes,
      async getToken(scope: string | string[]): Promise<AccessToken> {
        scopes.push(String(scope));
        return {
          token: `fake-${scopes.length}`,
          expiresOnTimestamp: Date.now() + 3_600_000,
          tokenType: 'Bearer',
        };
      },
    };
  }

  test('caches per scope and refreshes before expiry', async () => {
    const clock = manualClock();
    const credential = fakeCredential();
    const signer = createAzureEntraSigner(
      { ...entry, scope: 'api://custom/.default' },
      { env: {}, now: clock.now, credential },
    );
    assert.equal((await signer.sign(request())).authorization, 'Bearer fake-1');
    assert.equal((await signer.sign(request())).authorization, 'Bearer fake-1');
    assert.deepEqual(credential.scopes, ['api://custom/.default']);
    clock.advance(3_600_000 - 2 * 60_000);
    assert.equal((await signer.sign(request())).authorization, 'Bearer fake-1');
    await eventually(() => credential.scopes.length === 2);
    // The credential was asked again; the signer uses its answer once it is in.
    let latest = '';
    for (let i = 0; i < 100 && latest !== 'Bearer fake-2'; i++) {
      latest = (await signer.sign(request())).authorization ?? '';
      if (latest !== 'Bearer fake-2') await new Promise((resolve) => setTimeout(resolve, 10));
    }
    assert.equal(latest, 'Bearer fake-2');
    assert.equal(credential.scopes.length, 2, 'one refresh');
    clock.advance(3_600_000);
    assert.equal(
      (await signer.sign(request())).authorization,
      'Bearer fake-3',
      'an expired token is never sent',
    );
  });

  test('a credential returning null is a CredentialError', async () => {
    const signer = createAzureEntraSigner(entry, { env: {}, credential: { getToken: async () => null } });
    await assert.rejects(
      signer.sign(request()),
      (error: unknown) => error instanceof CredentialError && /no token was returned/.test(error.message),
    );
  });
});
