import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { Value } from 'typebox/value';
import { AUTH_SCHEMAS, type AuthType } from './schema.ts';

const valid: { [K in AuthType]: unknown[] } = {
  none: [{ type: 'none' }],
  'api-key': [
    { type: 'api-key', header: 'x-api-key', key: 'env:ANTHROPIC_API_KEY' },
    { type: 'api-key', header: 'api-key', key: 'path:/run/secrets/azure' },
    { type: 'api-key', header: 'x-goog-api-key', key: 'env:GEMINI_KEY' },
  ],
  bearer: [{ type: 'bearer', token: 'env:OPENAI_API_KEY' }],
  'azure-entra': [
    {
      type: 'azure-entra',
      tenantId: 'contoso.onmicrosoft.com',
      clientId: '00000000-0000-0000-0000-000000000001',
      clientSecret: 'env:AZ',
    },
    {
      type: 'azure-entra',
      tenantId: 't',
      clientId: 'c',
      clientSecret: 'path:/s',
      scope: 'api://x/.default',
      authorityHost: 'https://login.microsoftonline.us',
    },
  ],
  'aws-sigv4': [
    {
      type: 'aws-sigv4',
      region: 'us-east-1',
      accessKeyId: 'env:AWS_ACCESS_KEY_ID',
      secretAccessKey: 'env:AWS_SECRET_ACCESS_KEY',
    },
    {
      type: 'aws-sigv4',
      region: 'eu-west-1',
      service: 'bedrock',
      accessKeyId: 'env:A',
      secretAccessKey: 'env:B',
      sessionToken: 'env:C',
    },
  ],
  'google-service-account': [
    { type: 'google-service-account', credentials: 'path:/etc/gcp/key.json' },
    {
      type: 'google-service-account',
      credentials: 'env:GCP_KEY',
      scopes: ['https://www.googleapis.com/auth/cloud-platform'],
      tokenUrl: 'http://127.0.0.1:8080/token',
    },
    {
      type: 'google-service-account',
      credentials: 'env:GCP_KEY',
      tokenUrl: 'https://private.p.googleapis.com/token',
    },
  ],
  'aws-default-chain': [
    { type: 'aws-default-chain' },
    { type: 'aws-default-chain', profile: 'bedrock-prod', region: 'eu-central-1', service: 'bedrock' },
  ],
  'google-adc': [
    { type: 'google-adc' },
    { type: 'google-adc', scopes: ['https://www.googleapis.com/auth/cloud-platform'] },
  ],
  'azure-managed-identity': [
    { type: 'azure-managed-identity' },
    {
      type: 'azure-managed-identity',
      clientId: '11111111-1111-1111-1111-111111111111',
      scope: 'api://x/.default',
    },
  ],
  'azure-default': [
    { type: 'azure-default' },
    { type: 'azure-default', clientId: '11111111-1111-1111-1111-111111111111' },
  ],
};

const invalid: { [K in AuthType]: unknown[] } = {
  none: [{ type: 'none', token: 'env:X' }],
  'api-key': [
    { type: 'api-key', header: 'authorization', key: 'env:X' },
    { type: 'api-key', header: 'x-api-key', key: 'sk-ant-inline-value' },
    { type: 'api-key', header: 'x-api-key' },
  ],
  bearer: [
    { type: 'bearer', token: 'env:1BAD' },
    { type: 'bearer', token: 'env:X', extra: 1 },
  ],
  'azure-entra': [
    { type: 'azure-entra', tenantId: 't', clientId: 'c', clientSecret: 'plain-secret' },
    {
      type: 'azure-entra',
      tenantId: 't',
      clientId: 'c',
      clientSecret: 'env:S',
      authorityHost: 'http://127.0.0.1:1234',
    },
    { type: 'azure-entra', tenantId: 't/../x', clientId: 'c', clientSecret: 'env:S' },
  ],
  'aws-sigv4': [
    { type: 'aws-sigv4', region: 'us-east-1', accessKeyId: 'AKIAEXAMPLE', secretAccessKey: 'env:B' },
    { type: 'aws-sigv4', region: 'us-east-1', accessKeyId: 'env:A' },
    { type: 'aws-sigv4', region: 'US EAST', accessKeyId: 'env:A', secretAccessKey: 'env:B' },
  ],
  'google-service-account': [
    { type: 'google-service-account', credentials: '{"private_key":"..."}' },
    { type: 'google-service-account', credentials: 'env:K', scopes: [] },
    { type: 'google-service-account', credentials: 'env:K', tokenUrl: 'http://tokens.example/token' },
  ],
  // Ambient types carry no secret: a key pasted in is an unknown field.
  'aws-default-chain': [
    { type: 'aws-default-chain', accessKeyId: 'env:A' },
    { type: 'aws-default-chain', profile: 'two words' },
    { type: 'aws-default-chain', region: 'US EAST' },
  ],
  'google-adc': [
    { type: 'google-adc', scopes: [] },
    { type: 'google-adc', credentials: 'path:/key.json' },
  ],
  'azure-managed-identity': [
    { type: 'azure-managed-identity', clientId: 'a/../b' },
    { type: 'azure-managed-identity', clientSecret: 'env:S' },
  ],
  'azure-default': [
    { type: 'azure-default', tenantId: 't' },
    { type: 'azure-default', scope: 'two scopes' },
  ],
};

describe('AUTH_SCHEMAS', () => {
  for (const type of Object.keys(AUTH_SCHEMAS) as AuthType[]) {
    test(`${type}: accepts valid entries and rejects invalid ones`, () => {
      const schema = AUTH_SCHEMAS[type];
      for (const entry of valid[type]) assert.ok(Value.Check(schema, entry), JSON.stringify(entry));
      for (const entry of invalid[type]) assert.ok(!Value.Check(schema, entry), JSON.stringify(entry));
    });
  }
});
