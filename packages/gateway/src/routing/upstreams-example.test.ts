/** The example upstreams file for a real deployment, validated as start-up would. */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { existsSync } from 'node:fs';
import {
  ENV,
  EXPECTED,
  KEY_LOCATION,
  catalog,
  cleanUp,
  doc,
  endpointOf,
  example,
  problemsOf,
  relocated,
} from './upstreams-example-support.ts';

after(cleanUp);

describe('catalog/upstreams.example.json', () => {
  test('covers every (provider, vendor) of the catalog with the intended adapter, base URL and credential', () => {
    const seen = new Set<string>();
    for (const model of catalog.models) {
      for (const provider of model.offers.keys()) {
        const key = `${provider}/${model.vendor}`;
        const endpoint = endpointOf(provider, model);
        const expected = EXPECTED[key];
        assert.ok(expected, `${key} is expected`);
        assert.equal(endpoint.adapter, expected.adapter, key);
        assert.equal(endpoint.params.baseUrl, expected.baseUrl, key);
        assert.equal(endpoint.signer.kind, expected.signer, key);
        assert.equal(endpoint.key, key);
        assert.equal(endpoint.simulated, false);
        seen.add(key);
      }
    }
    assert.deepEqual([...seen].sort(), Object.keys(EXPECTED).sort());
    const declared = Object.entries(example.providers).flatMap(([provider, section]) =>
      Object.keys(section.vendors ?? {}).map((vendor) => `${provider}/${vendor}`),
    );
    assert.deepEqual(declared.sort(), Object.keys(EXPECTED).sort(), 'no endpoint the catalog does not use');
  });

  test('Bedrock gets its region, Vertex its project and the global location', () => {
    const claude = catalog.lookup('claude-sonnet-4-6');
    const gemini = catalog.lookup('gemini-2.5-flash');
    assert.ok(claude && gemini);
    assert.equal(endpointOf('cloud_a', claude).params.region, 'us-east-1');
    for (const endpoint of [endpointOf('cloud_b', claude), endpointOf('cloud_b', gemini)]) {
      assert.equal(endpoint.params.project, 'contoso-gw-prod');
      assert.equal(endpoint.params.region, 'global');
    }
  });

  test('a missing environment variable stops validation, naming the variable and no value', () => {
    const { file } = relocated(example);
    for (const name of Object.keys(ENV)) {
      const env = Object.fromEntries(Object.entries(ENV).filter(([key]) => key !== name));
      const error = problemsOf(file, env);
      // One problem per endpoint that reads it (Bedrock's three vendors share the AWS keys).
      assert.ok(error.problems.length >= 1, error.message);
      for (const problem of error.problems)
        assert.match(
          problem,
          new RegExp(`\\.auth: secret env:${name}: environment variable is not set or empty`),
        );
      for (const value of Object.values(ENV))
        assert.ok(!error.message.includes(value), `${name}: no value shown`);
      if (name === 'GEMINI_API_KEY')
        assert.ok(doc.includes(error.problems[0] ?? '?'), 'providers.md shows this problem');
    }
  });

  test('an unreadable service-account key file stops validation, naming its location', (t) => {
    if (existsSync('/run/secrets/vertex-sa.json')) return t.skip('this machine has the key file');
    const error = problemsOf(example, ENV);
    assert.deepEqual(error.problems, [
      `providers.cloud_b.vendors.anthropic.auth: secret ${KEY_LOCATION}: file cannot be read (ENOENT)`,
      `providers.cloud_b.vendors.google.auth: secret ${KEY_LOCATION}: file cannot be read (ENOENT)`,
    ]);
    assert.ok(doc.includes(error.problems[0] ?? '?'), 'providers.md shows this problem');
  });
});
