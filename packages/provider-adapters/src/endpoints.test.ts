import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ADAPTER_IDS } from './adapter.ts';
import { ADAPTER_TRAITS } from './endpoints.ts';

test("each adapter's public base URL ends with the suffix it requires of a configured one", () => {
  const required = Object.fromEntries(ADAPTER_IDS.map((id) => [id, ADAPTER_TRAITS[id].baseUrlSuffix]));
  assert.deepEqual(required, {
    openai: '/v1',
    'openai-compatible': undefined,
    'azure-openai': '/openai',
    anthropic: undefined,
    'vertex-claude': '/v1',
    'bedrock-converse': undefined,
    gemini: '/v1beta',
    'vertex-gemini': '/v1',
  });
  for (const id of ADAPTER_IDS) {
    const url = ADAPTER_TRAITS[id].defaultBaseUrl({ region: 'europe-west4' });
    const suffix = ADAPTER_TRAITS[id].baseUrlSuffix;
    if (url !== undefined && suffix !== undefined) assert.ok(url.endsWith(suffix), `${id}: ${url}`);
  }
});

test('Bedrock runtime hosts name their region: public, FIPS and interface VPC endpoint forms', () => {
  const regionOf = ADAPTER_TRAITS['bedrock-converse'].regionOfHost;
  assert.ok(regionOf);
  assert.equal(regionOf('bedrock-runtime.eu-central-1.amazonaws.com'), 'eu-central-1');
  assert.equal(regionOf('Bedrock-Runtime.US-EAST-1.amazonaws.com'), 'us-east-1');
  assert.equal(regionOf('bedrock-runtime-fips.us-gov-west-1.amazonaws.com'), 'us-gov-west-1');
  assert.equal(
    regionOf('vpce-0a1b2c3d4e5f60718-abcdefgh.bedrock-runtime.ap-southeast-2.vpce.amazonaws.com'),
    'ap-southeast-2',
  );
  for (const other of [
    'bedrock-proxy.corp.example',
    'bedrock.us-east-1.amazonaws.com',
    'bedrock-runtime.us-east-1.amazonaws.com.evil.example',
    '127.0.0.1',
  ])
    assert.equal(regionOf(other), undefined, other);
  for (const id of ADAPTER_IDS.filter((id) => id !== 'bedrock-converse'))
    assert.equal(ADAPTER_TRAITS[id].regionOfHost, undefined, id);
});
