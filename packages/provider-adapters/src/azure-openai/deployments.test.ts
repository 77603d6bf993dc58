import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AdapterParseError } from '../adapter.ts';
import { azureOpenAIAdapter } from './index.ts';

const lister = azureOpenAIAdapter.deployments;
const location = {
  baseUrl: 'https://management.azure.com',
  subscriptionId: '00000000-0000-4000-8000-000000000001',
  resourceGroup: 'gw-rg',
  account: 'contoso-gw',
};

describe('azure-openai deployments list (Azure Resource Manager)', () => {
  test('the first page is the account deployments list of the management API', () => {
    assert.ok(lister);
    assert.deepEqual(lister.buildRequest(location), {
      method: 'GET',
      url: 'https://management.azure.com/subscriptions/00000000-0000-4000-8000-000000000001/resourceGroups/gw-rg/providers/Microsoft.CognitiveServices/accounts/contoso-gw/deployments?api-version=2024-10-01',
      headers: { accept: 'application/json' },
      body: '',
    });
  });

  test('names come from each deployment; a next page is followed on the same host only', () => {
    assert.ok(lister);
    const next = `${location.baseUrl}/subscriptions/x/deployments?api-version=2024-10-01&$skipToken=2`;
    const page = lister.parseResponse(
      JSON.stringify({
        value: [
          {
            id: '/subscriptions/.../deployments/gpt54-prod',
            name: 'gpt54-prod',
            type: 'Microsoft.CognitiveServices/accounts/deployments',
            properties: { model: { format: 'OpenAI', name: 'gpt-5.4', version: '2026-03-05' } },
          },
          { name: 'mini' },
        ],
        nextLink: next,
      }),
      location,
    );
    assert.deepEqual(page, { names: ['gpt54-prod', 'mini'], nextLink: next });
    assert.equal(lister.buildRequest(location, next).url, next);
    const elsewhere = JSON.stringify({ value: [], nextLink: 'https://attacker.example/steal' });
    assert.throws(() => lister.parseResponse(elsewhere, location), AdapterParseError);
    assert.throws(() => lister.buildRequest(location, 'https://attacker.example/x'), AdapterParseError);
    assert.throws(() => lister.parseResponse('{"data":[]}', location), AdapterParseError);
  });

  test('a refusal yields its code; the deployment of an offer is its mapping, else the upstream model', () => {
    assert.ok(lister);
    const refusal = JSON.stringify({ error: { code: 'AuthorizationFailed', message: 'The client ...' } });
    assert.equal(lister.errorCode(refusal), 'AuthorizationFailed');
    assert.equal(lister.errorCode('<html>'), undefined);
    const endpoint = { baseUrl: 'https://res.example/openai', deployments: { 'gpt-5.4-2026-03-05': 'p' } };
    assert.equal(lister.deploymentOf('gpt-5.4-2026-03-05', endpoint), 'p');
    assert.equal(lister.deploymentOf('gpt-5.5-2026-04-23', endpoint), 'gpt-5.5-2026-04-23');
  });
});
