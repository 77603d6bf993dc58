/**
 * Azure deployments named by the operator: the `deployments` map checked at start-up, a chat
 * call through the gateway reaching the mapped deployment on the simulator, and
 * `catalog-check --credentials` listing the simulator's deployments through Resource Manager
 * with a managed identity token, naming each deployment that does not exist.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { DEFAULT_AZURE_RESOURCE, type Simulator, startSimulator } from '@app/upstream-simulator';
import { type ChatTestApp, startChatApp } from '../front-doors/chat-completions/testing.ts';
import { DEFAULT_CATALOG_PATH, DEFAULT_UPSTREAMS_PATH, readJsonFile } from './index.ts';
import { buildTestUpstreams, upstreamsFile, upstreamsProblems } from './testing.ts';

const dir = mkdtempSync(join(tmpdir(), 'deployments-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const azure = (extra: Record<string, unknown>) => ({
  adapter: 'azure-openai',
  baseUrl: 'https://acme.openai.azure.com/openai',
  ...extra,
});
const management = {
  subscriptionId: DEFAULT_AZURE_RESOURCE.subscriptionId,
  resourceGroup: DEFAULT_AZURE_RESOURCE.resourceGroup,
  account: DEFAULT_AZURE_RESOURCE.account,
};

describe('deployments at start-up', () => {
  test('each key must name a model this endpoint serves, and each model once', () => {
    const problems = upstreamsProblems(
      upstreamsFile({
        cloud_c: {
          default: azure({
            deployments: {
              'gpt-9': 'x1',
              'claude-opus-4-8': 'opus',
              'gpt-5.4-mini': 'mini-a',
              'gpt-5.4-mini-2026-03-17': 'mini-b',
              'gpt-5.6-terra': 'terra',
            },
          }),
          families: { 'gpt-terra': azure({}) },
        },
      }),
    );
    assert.deepEqual(problems, [
      'providers.cloud_c.default.deployments.gpt-9: not a model of the catalog',
      'providers.cloud_c.default.deployments.claude-opus-4-8: claude-opus-4-8 is not served through providers.cloud_c.default',
      'providers.cloud_c.default.deployments.gpt-5.4-mini-2026-03-17: names gpt-5.4-mini-2026-03-17, as providers.cloud_c.default.deployments.gpt-5.4-mini does',
      'providers.cloud_c.default.deployments.gpt-5.6-terra: gpt-5.6-terra is not served through providers.cloud_c.default',
    ]);
  });

  test('the mapping reaches the endpoint by upstream model, an alias resolved to its version', async () => {
    const { upstreams } = buildTestUpstreams(
      upstreamsFile({ cloud_c: { default: azure({ deployments: { 'gpt-5.4-mini': 'mini-prod' } }) } }),
    );
    const endpoint = upstreams.endpoint('cloud_c', 'gpt-mini', 'openai');
    assert.deepEqual(endpoint?.params.deployments, { 'gpt-5.4-mini-2026-03-17': 'mini-prod' });
    assert.equal(endpoint?.management, undefined);
    await upstreams.close();
  });

  test('listing deployments needs an Entra identity: the endpoint’s, or management.auth', async () => {
    const withKey = azure({ auth: { type: 'api-key', header: 'api-key', key: 'env:AZURE_KEY' }, management });
    assert.deepEqual(upstreamsProblems(upstreamsFile({ cloud_c: { default: withKey } })), [
      'providers.cloud_c.default.management.auth: required: providers.cloud_c.default.auth (api-key) cannot call the management API, which takes Entra ID tokens only (azure-entra, azure-managed-identity, azure-default)',
    ]);
    const keyForManagement = { ...management, auth: { type: 'bearer', token: 'env:ARM' } };
    assert.deepEqual(
      upstreamsProblems(upstreamsFile({ cloud_c: { default: azure({ management: keyForManagement }) } })),
      [
        'providers.cloud_c.default.management.auth.type: must be one of azure-entra, azure-managed-identity, azure-default: the management API takes Entra ID tokens only',
      ],
    );
    const identity = { ...withKey, management: { ...management, auth: { type: 'azure-managed-identity' } } };
    const { upstreams } = buildTestUpstreams(upstreamsFile({ cloud_c: { default: identity } }), {
      env: { AZURE_KEY: 'k' },
    });
    assert.deepEqual(upstreams.endpoint('cloud_c', 'gpt', 'openai')?.management, {
      location: { baseUrl: 'https://management.azure.com', ...management },
      auth: { type: 'azure-managed-identity', scope: 'https://management.azure.com/.default' },
    });
    await upstreams.close();
  });
});

/** The bundled simulated file with cloud_c's OpenAI endpoint changed by `patch`. */
function simulatedWith(name: string, patch: Record<string, unknown>): string {
  const file = readJsonFile(DEFAULT_UPSTREAMS_PATH) as {
    providers: { cloud_c: { vendors: { openai: Record<string, unknown> } } };
  };
  Object.assign(file.providers.cloud_c.vendors.openai, patch);
  const path = join(dir, name);
  writeFileSync(path, JSON.stringify(file));
  return path;
}

describe('a chat call on cloud_c for a mapped model', () => {
  let t: ChatTestApp;
  before(async () => {
    const upstreamsPath = simulatedWith('chat.json', {
      apiVersion: '2024-10-21',
      deployments: { 'gpt-5.4-mini-2026-03-17': 'mini-prod' },
    });
    // The resource names its mini deployment `mini-prod`: the dated id does not exist there.
    t = await startChatApp({
      routing: { upstreamsPath },
      simulator: {
        azure: { deployments: { 'mini-prod': 'gpt-5.4-mini-2026-03-17', 'gpt-5.6-sol': 'gpt-5.6-sol' } },
      },
    });
  });
  after(() => t.close());

  test('reaches the mapped deployment URL and answers under the catalog name', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/v1/chat/completions',
      headers: t.headers(),
      payload: { model: 'gpt-5.4-mini@cloud_c', messages: [{ role: 'user', content: 'Hello' }] },
    });
    assert.equal(response.statusCode, 200, response.body);
    assert.equal(response.json().model, 'gpt-5.4-mini-2026-03-17');
    assert.equal(
      t.sim.received.at(-1)?.path,
      '/azure/openai/deployments/mini-prod/chat/completions?api-version=2024-10-21',
    );
  });
});

describe('catalog-check --credentials lists the deployments through Resource Manager', () => {
  const script = fileURLToPath(new URL('./catalog-check.ts', import.meta.url));
  let sim: Simulator;
  before(async () => {
    sim = await startSimulator({
      azure: {
        deployments: {
          'gpt-5.6-sol': 'gpt-5.6-sol',
          'gpt-5.5-2026-04-23': 'gpt-5.5-2026-04-23',
          'gpt-5.4-2026-03-05': 'gpt-5.4-2026-03-05',
          'gpt-5.6-terra': 'gpt-5.6-terra',
          'gpt-5.6-luna': 'gpt-5.6-luna',
          'mini-prod': 'gpt-5.4-mini-2026-03-17',
          'text-embedding-3-large': 'text-embedding-3-large',
          'text-embedding-3-small': 'text-embedding-3-small',
        },
      },
    });
  });
  after(() => sim.close());

  /** The command as an operator runs it, on the simulator's managed identity endpoint. */
  const check = (deployments: Record<string, string>) => {
    const path = simulatedWith(`check-${Object.values(deployments).join('-')}.json`, {
      baseUrl: `${sim.url}/azure/openai`,
      deployments,
      management: {
        ...management,
        baseUrl: `${sim.url}/azure/management`,
        auth: { type: 'azure-managed-identity' },
      },
    });
    return promisify(execFile)(process.execPath, [script, '--credentials', DEFAULT_CATALOG_PATH, path], {
      env: {
        PATH: process.env.PATH ?? '',
        SIM_AZURE_API_KEY: sim.credentials.azureKey,
        ...sim.azureIdentityEnv,
      },
    });
  };

  test('a mapped deployment the resource does not have is named, with its model', async () => {
    await assert.rejects(
      check({ 'gpt-5.4-mini-2026-03-17': 'mini-staging' }),
      (error: { code?: number; stderr?: string }) => {
        assert.equal(error.code, 1, error.stderr);
        assert.equal(
          String(error.stderr).trim(),
          [
            `${join(dir, 'check-mini-staging.json')}: deployments missing or not listed`,
            "  - providers.cloud_c.vendors.openai.deployments: gpt-5.4-mini-2026-03-17 is mapped to deployment 'mini-staging', which account sim-openai does not have",
          ].join('\n'),
        );
        return true;
      },
    );
  });

  test('every deployment the endpoint calls exists: ok, the list was read', async () => {
    const { stdout } = await check({ 'gpt-5.4-mini-2026-03-17': 'mini-prod' });
    assert.match(stdout, /: ok, credentials present \(deployments of 1 listed\)/);
    const listed = sim.received.filter((request) => request.path.startsWith('/azure/management/'));
    assert.match(String(listed.at(-1)?.headers.authorization), /^Bearer eyJ0eXAiOiJKV1Qi\.sim-entra-/);
  });
});
