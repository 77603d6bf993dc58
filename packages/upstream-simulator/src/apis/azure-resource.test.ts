/**
 * The simulated Azure OpenAI resource: inference only at deployments it has (by whatever name
 * they were given), Resource Manager's deployments list with a management token, and the App
 * Service identity endpoint that issues it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Simulator, startSimulator } from '../server.ts';

let sim: Simulator;
const resource = {
  subscriptionId: '11111111-2222-4333-8444-555555555555',
  resourceGroup: 'gw-rg',
  account: 'contoso-gw',
  deployments: { 'mini-prod': 'gpt-5.4-mini-2026-03-17', 'gpt-5.6-sol': 'gpt-5.6-sol' },
};

before(async () => {
  sim = await startSimulator({ azure: resource });
});
after(() => sim.close());

async function post(path: string, body: Record<string, unknown>) {
  const response = await fetch(`${sim.url}${path}`, {
    method: 'POST',
    headers: { 'api-key': sim.credentials.azureKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: (await response.json()) as Record<string, unknown> };
}

const messages = [{ role: 'user', content: 'Hello there' }];
const errorCode = (json: Record<string, unknown>) => (json.error as { code?: string } | undefined)?.code;

describe('Azure OpenAI deployments', () => {
  test("a deployment answers with its model, under the model's own rules; others are DeploymentNotFound", async () => {
    const classic = await post(
      '/azure/openai/deployments/mini-prod/chat/completions?api-version=2024-10-21',
      {
        messages,
      },
    );
    assert.equal(classic.status, 200, JSON.stringify(classic.json));
    assert.equal(classic.json.model, 'gpt-5.4-mini-2026-03-17');
    const v1 = await post('/azure/openai/v1/chat/completions', { model: 'mini-prod', messages });
    assert.equal(v1.status, 200);
    // The mini model has no `max` effort: the rules are the deployment's model's.
    const max = await post('/azure/openai/v1/chat/completions', {
      model: 'mini-prod',
      messages,
      reasoning_effort: 'max',
    });
    assert.equal(max.status, 400);
    for (const [path, body] of [
      ['/azure/openai/v1/chat/completions', { model: 'gpt-5.4-mini-2026-03-17', messages }],
      [
        '/azure/openai/deployments/gpt-5.4-mini-2026-03-17/chat/completions?api-version=2024-10-21',
        { messages },
      ],
      ['/azure/openai/v1/responses', { model: 'gpt-5.4-mini-2026-03-17', input: 'Hi' }],
    ] as const) {
      const missing = await post(path, body);
      assert.equal(missing.status, 404, path);
      assert.equal(errorCode(missing.json), 'DeploymentNotFound');
    }
    const responses = await post('/azure/openai/v1/responses', { model: 'mini-prod', input: 'Hi' });
    assert.equal(responses.status, 200);
  });

  test('without a deployments option, each known OpenAI model is deployed under its own id', async () => {
    const plain = await startSimulator();
    try {
      const response = await fetch(`${plain.url}/azure/openai/v1/chat/completions`, {
        method: 'POST',
        headers: { 'api-key': plain.credentials.azureKey, 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'gpt-5.4-mini-2026-03-17', messages }),
      });
      assert.equal(response.status, 200);
    } finally {
      await plain.close();
    }
  });
});

describe('Resource Manager and the managed identity endpoint', () => {
  const listPath = (account = resource.account) =>
    `/azure/management/subscriptions/${resource.subscriptionId}/resourceGroups/${resource.resourceGroup}/providers/Microsoft.CognitiveServices/accounts/${account}/deployments`;

  async function token(audience: string, header = sim.azureIdentityEnv.IDENTITY_HEADER ?? '') {
    const url = new URL(sim.azureIdentityEnv.IDENTITY_ENDPOINT ?? '');
    url.search = new URLSearchParams({ 'api-version': '2019-08-01', resource: audience }).toString();
    const response = await fetch(url, { headers: { 'x-identity-header': header } });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  }

  async function list(path: string, accessToken: unknown) {
    const response = await fetch(`${sim.url}${path}`, {
      headers: { authorization: `Bearer ${String(accessToken)}` },
    });
    return { status: response.status, json: (await response.json()) as Record<string, unknown> };
  }

  test('lists the deployments, with their models, for a management token', async () => {
    const issued = await token('https://management.azure.com');
    assert.equal(issued.status, 200);
    assert.equal(issued.json.token_type, 'Bearer');
    assert.match(String(issued.json.expires_on), /^\d+$/);
    const listed = await list(`${listPath()}?api-version=2024-10-01`, issued.json.access_token);
    assert.equal(listed.status, 200, JSON.stringify(listed.json));
    const value = listed.json.value as { name: string; properties: { model: unknown } }[];
    assert.deepEqual(
      value.map((item) => [item.name, item.properties.model]),
      [
        ['mini-prod', { format: 'OpenAI', name: 'gpt-5.4-mini', version: '2026-03-17' }],
        ['gpt-5.6-sol', { format: 'OpenAI', name: 'gpt-5.6-sol', version: '1' }],
      ],
    );
  });

  test('refuses as Resource Manager does: audience, api-version, unknown account, identity header', async () => {
    const cognitive = await token('https://cognitiveservices.azure.com');
    const wrongAudience = await list(`${listPath()}?api-version=2024-10-01`, cognitive.json.access_token);
    assert.deepEqual(
      [wrongAudience.status, errorCode(wrongAudience.json)],
      [401, 'InvalidAuthenticationToken'],
    );
    const management = (await token('https://management.azure.com/')).json.access_token;
    const noVersion = await list(listPath(), management);
    assert.deepEqual([noVersion.status, errorCode(noVersion.json)], [400, 'MissingApiVersionParameter']);
    const other = await list(`${listPath('elsewhere')}?api-version=2024-10-01`, management);
    assert.deepEqual([other.status, errorCode(other.json)], [404, 'ResourceNotFound']);
    assert.equal((await token('https://management.azure.com', 'wrong')).status, 400);
  });
});
