import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { inspect } from 'node:util';
import {
  type AuthEntry,
  createAzureEntraSigner,
  createSigner,
  CredentialError,
  type Signer,
} from './index.ts';
import {
  captureOutput,
  forwardingHttpClient,
  type LocalServer,
  request,
  sendJson,
  startServer,
} from './test-support.ts';

const privatePem = generateKeyPairSync('rsa', { modulusLength: 2048 })
  .privateKey.export({ type: 'pkcs8', format: 'pem' })
  .toString();
const env = {
  API_KEY: 'sk-ant-api-key-secret-1',
  BEARER: 'sk-openai-bearer-secret-2',
  AWS_ID: 'AKIDSECRETID3',
  AWS_SECRET: 'aws-secret-access-key-4',
  AWS_SESSION: 'aws-session-token-5',
  AZURE_SECRET: 'azure-client-secret-6',
  GCP_KEY: JSON.stringify({
    type: 'service_account',
    client_email: 'sa@p.iam.gserviceaccount.com',
    private_key: privatePem,
  }),
};
/** Values that must never show up in a message, a stack, an inspected object or the output. */
const secrets = [
  env.API_KEY,
  env.BEARER,
  env.AWS_SECRET,
  env.AWS_SESSION,
  env.AZURE_SECRET,
  privatePem.split('\n')[1] ?? '',
];

describe('createSigner', () => {
  let server: LocalServer;
  before(async () => {
    server = await startServer((req, res) => {
      if (req.url.includes('openid-configuration')) {
        const base = 'https://login.test/t';
        sendJson(res, 200, {
          token_endpoint: `${base}/token`,
          authorization_endpoint: `${base}/a`,
          issuer: base,
          jwks_uri: `${base}/k`,
        });
        return;
      }
      // Echoes the request back, as a careless or hostile token endpoint might.
      sendJson(res, 401, { error: 'invalid_client', error_description: req.body });
    });
  });
  after(() => server.close());

  const entries = (): AuthEntry[] => [
    { type: 'none' },
    { type: 'api-key', header: 'x-api-key', key: 'env:API_KEY' },
    { type: 'bearer', token: 'env:BEARER' },
    {
      type: 'aws-sigv4',
      region: 'us-west-2',
      accessKeyId: 'env:AWS_ID',
      secretAccessKey: 'env:AWS_SECRET',
      sessionToken: 'env:AWS_SESSION',
    },
    { type: 'azure-entra', tenantId: 't', clientId: 'c', clientSecret: 'env:AZURE_SECRET' },
    { type: 'google-service-account', credentials: 'env:GCP_KEY', tokenUrl: `${server.origin}/token` },
  ];

  test('dispatches on type', async () => {
    const kinds = entries().map((entry) => createSigner(entry, { env }).kind);
    assert.deepEqual(kinds, [
      'none',
      'api-key',
      'bearer',
      'aws-sigv4',
      'azure-entra',
      'google-service-account',
    ]);
    const ambient: AuthEntry[] = [
      { type: 'aws-default-chain' },
      { type: 'google-adc' },
      { type: 'azure-managed-identity' },
      { type: 'azure-default' },
    ];
    // Nothing is looked up at creation: metadata servers may answer only once the host is up.
    const ambientSigners = ambient.map((entry) => createSigner(entry, { env: {}, region: 'us-east-1' }));
    assert.deepEqual(
      ambientSigners.map((signer) => signer.kind),
      ['aws-default-chain', 'google-adc', 'azure-managed-identity', 'azure-default'],
    );
    for (const signer of ambientSigners) await signer.close();
    const signed = await createSigner(
      { type: 'api-key', header: 'x-api-key', key: 'env:API_KEY' },
      { env },
    ).sign(request());
    assert.equal(signed['x-api-key'], env.API_KEY);
  });

  test('no error message, inspected signer or output contains a secret', async () => {
    const texts: string[] = [];
    const record = (error: unknown): void => {
      assert.ok(error instanceof CredentialError, inspect(error));
      texts.push(error.message, String(error.stack), inspect(error, { depth: 10 }), JSON.stringify(error));
    };
    const output = await captureOutput(async () => {
      const signers: Signer[] = entries().map((entry) => createSigner(entry, { env }));
      signers.push(
        createAzureEntraSigner(
          {
            type: 'azure-entra',
            tenantId: 't',
            clientId: 'c',
            clientSecret: 'env:AZURE_SECRET',
            authorityHost: 'https://login.test',
          },
          { env, httpClient: forwardingHttpClient(server.origin) },
        ),
      );
      for (const signer of signers) texts.push(inspect(signer, { depth: 10, showHidden: true }));
      // Token endpoints that refuse (and echo the request), and one that cannot be reached.
      for (const signer of signers.slice(-2))
        await signer.sign(request()).then(() => assert.fail('expected a rejection'), record);
      // Missing or malformed secrets at creation.
      for (const entry of entries().slice(1)) {
        try {
          createSigner(entry, {
            env: Object.fromEntries(Object.entries(env).map(([k, v]) => [k, `${v}\n\u0000broken`])),
          });
        } catch (error) {
          record(error);
        }
        assert.throws(() => createSigner(entry, { env: {} }), CredentialError);
      }
    });
    texts.push(output);
    for (const text of texts)
      for (const secret of secrets)
        assert.ok(!text.includes(secret), `leak of ${secret.slice(0, 8)}… in ${text.slice(0, 200)}`);
  });
});
