/**
 * Every signer tells the gateway's redactor what it holds: the secrets it reads at creation and
 * the tokens and temporary credentials it obtains later, so that none of them can come back to
 * a client or a log inside an upstream's text.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { describe, test } from 'node:test';
import type { AccessToken, TokenCredential } from '@azure/identity';
import { createApiKeySigner } from './api-key-signer.ts';
import { createAwsDefaultChainSigner } from './aws-default-chain-signer.ts';
import { createAwsSigv4Signer } from './aws-sigv4-signer.ts';
import { createAzureEntraSigner } from './azure-entra-signer.ts';
import { createBearerSigner } from './bearer-signer.ts';
import { createGoogleServiceAccountSigner } from './google-service-account-signer.ts';
import { REDACTED, SecretRedactor } from './secret-redactor.ts';
import { request } from './test-support.ts';

/** Whether the redactor knows the value (whole, and a piece of it in a sentence). */
function knows(redactor: SecretRedactor, value: string): boolean {
  const piece = value.slice(1, 11);
  return redactor.redact(value) === REDACTED && redactor.redact(`x ${piece} y`) === `x ${REDACTED} y`;
}

describe('signers report their secrets', () => {
  test('static keys and tokens, read at creation', () => {
    const secrets = new SecretRedactor();
    const env = {
      KEY: 'static-api-key-value-1',
      TOKEN: 'static-bearer-token-value-2',
      AWS_ID: 'AKIASTATICEXAMPLE01',
      AWS_SECRET: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY',
      AWS_SESSION: 'static-session-token-value-3',
      AZURE_SECRET: 'entra-client-secret-value-4',
    };
    createApiKeySigner({ type: 'api-key', header: 'x-api-key', key: 'env:KEY' }, { env, secrets });
    createBearerSigner({ type: 'bearer', token: 'env:TOKEN' }, { env, secrets });
    createAwsSigv4Signer(
      {
        type: 'aws-sigv4',
        region: 'us-east-1',
        accessKeyId: 'env:AWS_ID',
        secretAccessKey: 'env:AWS_SECRET',
        sessionToken: 'env:AWS_SESSION',
      },
      { env, secrets },
    );
    const entra = {
      type: 'azure-entra',
      tenantId: 't',
      clientId: 'c',
      clientSecret: 'env:AZURE_SECRET',
    } as const;
    createAzureEntraSigner(entra, { env, secrets });
    for (const [name, value] of Object.entries(env)) assert.ok(knows(secrets, value), name);
  });

  test("a service account's private key", () => {
    const secrets = new SecretRedactor();
    const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    const pem = privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
    const key = JSON.stringify({ type: 'service_account', client_email: 'gw@p.iam', private_key: pem });
    createGoogleServiceAccountSigner(
      { type: 'google-service-account', credentials: 'env:SA' },
      { env: { SA: key }, secrets },
    );
    const line = pem.split('\n')[5] ?? '';
    assert.ok(knows(secrets, line), 'a line of the key');
  });

  test('Entra tokens as they are obtained', async () => {
    const secrets = new SecretRedactor();
    const token = 'eyJ0eXAiOiJKV1Qi.entra-access-token.signature';
    const credential: TokenCredential = {
      getToken: async (): Promise<AccessToken> => ({ token, expiresOnTimestamp: Date.now() + 3_600_000 }),
    };
    const entra = { type: 'azure-entra', tenantId: 't', clientId: 'c', clientSecret: 'env:S' } as const;
    const signer = createAzureEntraSigner(entra, { env: {}, credential, secrets });
    assert.equal(knows(secrets, token), false, 'not before it exists');
    await signer.sign(request());
    assert.ok(knows(secrets, token));
    await signer.close();
  });

  test("the AWS chain's temporary credentials, each set as it arrives", async () => {
    const secrets = new SecretRedactor();
    const issued = {
      accessKeyId: 'ASIATEMPORARYEXAMPLE',
      secretAccessKey: 'temporary-secret-access-key-value',
      sessionToken: 'temporary-session-token-value',
    };
    const signer = createAwsDefaultChainSigner(
      { type: 'aws-default-chain', region: 'us-east-1' },
      { env: {}, provider: async () => issued, secrets },
    );
    await signer.sign(request({ url: 'https://bedrock-runtime.us-east-1.amazonaws.com/model/m/converse' }));
    for (const value of Object.values(issued)) assert.ok(knows(secrets, value), value);
    await signer.close();
  });
});
