/** docs/gateway/providers.md: the ambient credential examples validate and are what the code does. */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import type { ProviderId } from '../../contracts.ts';
import {
  ENV,
  build,
  catalog,
  cleanUp,
  doc,
  docExample,
  relocated,
  withSnippet,
} from '../../routing/upstreams-example-support.ts';
import { AMBIENT_AUTH_TYPES } from './index.ts';
import { request, withProcessEnv } from './test-support.ts';

after(cleanUp);

const cases: Array<[string, ProviderId, string[], string]> = [
  ['cloud_a-default-chain', 'cloud_a', ['claude-sonnet-4-6'], 'aws-default-chain'],
  ['cloud_b-adc', 'cloud_b', ['claude-sonnet-4-6', 'gemini-2.5-flash'], 'google-adc'],
  ['cloud_c-managed-identity', 'cloud_c', ['gpt-5.6-sol'], 'azure-managed-identity'],
];

describe('docs/gateway/providers.md, ambient credentials', () => {
  for (const [name, provider, models, kind] of cases) {
    test(`the ${name} example validates and is used for ${models.join(', ')}`, () => {
      const upstreams = build(relocated(withSnippet(docExample(name))).file, ENV);
      for (const id of models) {
        const model = catalog.lookup(id);
        assert.ok(model, id);
        assert.equal(upstreams.endpoint(provider, model.family, model.vendor)?.signer.kind, kind, id);
      }
    });
  }

  test("the Bedrock example signs for the endpoint's region, with keys from the environment", async () => {
    const upstreams = build(relocated(withSnippet(docExample('cloud_a-default-chain'))).file, ENV);
    const model = catalog.lookup('claude-sonnet-4-6');
    assert.ok(model);
    const signer = upstreams.endpoint('cloud_a', model.family, model.vendor)?.signer;
    assert.ok(signer);
    // The first source of the chain: the AWS SDK reads these from process.env only.
    const keys = { AWS_ACCESS_KEY_ID: 'AKIADOCSEXAMPLE', AWS_SECRET_ACCESS_KEY: 'docs-example-secret' };
    const signed = await withProcessEnv(keys, () => signer.sign(request()));
    assert.match(
      signed.authorization ?? '',
      /^AWS4-HMAC-SHA256 Credential=AKIADOCSEXAMPLE\/\d{8}\/us-east-1\/bedrock\//,
    );
  });

  test('the credentials table lists every ambient type', () => {
    for (const type of AMBIENT_AUTH_TYPES) assert.match(doc, new RegExp(`\\| \`${type}\` \\|`));
  });
});
