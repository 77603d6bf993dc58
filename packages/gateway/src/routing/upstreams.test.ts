import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { DEFAULT_UPSTREAMS_PATH, readJsonFile } from './index.ts';
import {
  buildTestUpstreams,
  SIMULATED_ENV,
  SIMULATOR_URL,
  TEST_ENDPOINTS,
  upstreamsFile,
  upstreamsProblems,
} from './testing.ts';
import type { Endpoint } from './upstreams.ts';

const { openai, anthropic, gemini, vertex } = TEST_ENDPOINTS;
const file = upstreamsFile;
const build = buildTestUpstreams;
const problemsOf = upstreamsProblems;

const request = { method: 'POST', url: 'https://upstream.test/v1/x', headers: {}, body: '{}' } as const;

/** The headers an endpoint's signer adds to a bare request. */
function credentialsOf(endpoint: Endpoint | undefined) {
  assert.ok(endpoint, 'the endpoint exists');
  return endpoint.signer.sign(request);
}

test('the bundled file sends every vendor to its simulated API, with the simulated credentials', async () => {
  const { upstreams, warnings } = build(readJsonFile(DEFAULT_UPSTREAMS_PATH), { env: SIMULATED_ENV });
  assert.deepEqual(warnings, []);
  const expected = [
    ['developer', 'gpt', 'openai', 'openai', `${SIMULATOR_URL}/openai/v1`],
    ['developer', 'claude-opus', 'anthropic', 'anthropic', `${SIMULATOR_URL}/anthropic`],
    ['developer', 'gemini-pro', 'google', 'gemini', `${SIMULATOR_URL}/gemini/v1beta`],
    ['cloud_a', 'claude-sonnet', 'anthropic', 'bedrock-converse', `${SIMULATOR_URL}/bedrock`],
    ['cloud_b', 'claude-sonnet', 'anthropic', 'vertex-claude', `${SIMULATOR_URL}/vertex/v1`],
    ['cloud_b', 'gemini-pro', 'google', 'vertex-gemini', `${SIMULATOR_URL}/vertex/v1`],
    ['cloud_c', 'gpt', 'openai', 'azure-openai', `${SIMULATOR_URL}/azure/openai`],
  ] as const;
  for (const [provider, family, vendor, adapter, baseUrl] of expected) {
    const endpoint = upstreams.endpoint(provider, family, vendor);
    assert.equal(endpoint?.key, `${provider}/${vendor}`);
    assert.equal(endpoint?.adapter, adapter);
    assert.equal(endpoint?.params.baseUrl, baseUrl);
    assert.equal(endpoint?.simulated, true);
  }
  assert.deepEqual(upstreams.endpoint('cloud_a', 'claude-sonnet', 'anthropic')?.params.region, 'us-east-1');
  assert.deepEqual(await credentialsOf(upstreams.endpoint('developer', 'claude-opus', 'anthropic')), {
    'x-api-key': SIMULATED_ENV.SIM_ANTHROPIC_API_KEY,
  });
  assert.equal(upstreams.endpoint('cloud_a', 'claude-sonnet', 'anthropic')?.signer.kind, 'aws-sigv4');
  await upstreams.close();
});

test('without a simulator in process the simulated endpoints are unusable, with a warning each', () => {
  const { upstreams, warnings } = build(readJsonFile(DEFAULT_UPSTREAMS_PATH), {
    simulatorUrl: undefined,
    env: SIMULATED_ENV,
  });
  assert.equal(upstreams.endpoint('developer', 'gpt', 'openai'), undefined);
  assert.equal(warnings.length, 9);
  assert.match(warnings[0] ?? '', /^providers\.developer\.vendors\.openai: baseUrl is 'simulator'/);
});

test('simulator/<path> is substituted in the base URL and in the token URL of the credentials', async () => {
  const paths: string[] = [];
  const server = createServer((req, res) => {
    paths.push(req.url ?? '');
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ access_token: 'ya29.sim-token', expires_in: 3600, token_type: 'Bearer' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const auth = {
      type: 'google-service-account',
      credentials: 'env:SIM_GOOGLE_SERVICE_ACCOUNT',
      tokenUrl: 'simulator/google/token',
    };
    const claude = { adapter: 'vertex-claude', ...vertex, baseUrl: 'simulator/vertex/v1', auth };
    // A key as Google issues it (Google's token_uri), so that only tokenUrl says where to go.
    const key = JSON.parse(SIMULATED_ENV.SIM_GOOGLE_SERVICE_ACCOUNT ?? '{}') as Record<string, unknown>;
    const googleKey = JSON.stringify({ ...key, token_uri: 'https://oauth2.googleapis.com/token' });
    const { upstreams } = build(
      file({ cloud_b: { default: claude, vendors: { google: { adapter: 'vertex-gemini', ...vertex } } } }),
      {
        simulatorUrl: origin,
        env: { ...SIMULATED_ENV, SIM_GOOGLE_SERVICE_ACCOUNT: googleKey },
      },
    );
    const endpoint = upstreams.endpoint('cloud_b', 'claude-opus', 'anthropic');
    assert.equal(endpoint?.params.baseUrl, `${origin}/vertex/v1`);
    assert.equal(endpoint?.simulated, true);
    assert.deepEqual(await credentialsOf(endpoint), { authorization: 'Bearer ya29.sim-token' });
    assert.deepEqual(paths, ['/google/token']);
    assert.equal(upstreams.endpoint('cloud_b', 'gemini-pro', 'google')?.simulated, false);
    await upstreams.close();
  } finally {
    server.close();
  }
});

test('endpoints without a base URL get the public one of their API', () => {
  const { upstreams } = build(
    file({
      developer: {
        vendors: {
          openai: { adapter: 'openai' },
          anthropic: { adapter: 'anthropic' },
          google: { adapter: 'gemini' },
        },
      },
      cloud_c: {
        default: {
          adapter: 'azure-openai',
          baseUrl: 'https://acme.openai.azure.com/openai/',
          apiVersion: '2025-04-01-preview',
        },
      },
    }),
  );
  const params = (
    provider: 'developer' | 'cloud_a' | 'cloud_b' | 'cloud_c',
    family: string,
    vendor: string,
  ) => upstreams.endpoint(provider, family, vendor)?.params;
  assert.deepEqual(params('developer', 'gpt', 'openai'), { baseUrl: 'https://api.openai.com/v1' });
  assert.deepEqual(params('developer', 'claude-opus', 'anthropic'), { baseUrl: 'https://api.anthropic.com' });
  assert.deepEqual(params('developer', 'gemini-pro', 'google'), {
    baseUrl: 'https://generativelanguage.googleapis.com/v1beta',
  });
  assert.deepEqual(params('cloud_a', 'claude-opus', 'anthropic'), {
    baseUrl: 'https://bedrock-runtime.eu-central-1.amazonaws.com',
    region: 'eu-central-1',
  });
  assert.deepEqual(params('cloud_b', 'claude-opus', 'anthropic'), {
    baseUrl: 'https://aiplatform.googleapis.com/v1',
    region: 'global',
    project: 'acme-ai',
  });
  assert.deepEqual(params('cloud_b', 'gemini-pro', 'google'), {
    baseUrl: 'https://europe-west4-aiplatform.googleapis.com/v1',
    region: 'europe-west4',
    project: 'acme-ai',
  });
  assert.deepEqual(params('cloud_c', 'gpt', 'openai'), {
    baseUrl: 'https://acme.openai.azure.com/openai',
    apiVersion: '2025-04-01-preview',
  });
  assert.equal(upstreams.endpoint('developer', 'gpt', 'openai')?.simulated, false);
});

test('the family entry wins over the vendor entry, the vendor entry over the default', () => {
  const special = { ...anthropic, baseUrl: 'http://10.0.0.2:8000', timeoutMs: 5000 };
  const { upstreams } = build(
    file({
      developer: {
        default: openai,
        vendors: { anthropic, google: gemini },
        families: { 'claude-opus': special },
      },
    }),
  );
  const opus = upstreams.endpoint('developer', 'claude-opus', 'anthropic');
  assert.equal(opus?.key, 'developer/claude-opus');
  assert.equal(opus?.params.baseUrl, 'http://10.0.0.2:8000');
  assert.equal(opus?.timeoutMs, 5000);
  const sonnet = upstreams.endpoint('developer', 'claude-sonnet', 'anthropic');
  assert.equal(sonnet?.key, 'developer/anthropic', 'no family entry: the vendor entry');
  assert.equal(sonnet?.params.baseUrl, 'http://127.0.0.1:11435');
  assert.equal(sonnet?.timeoutMs, 120_000);
  assert.equal(
    upstreams.endpoint('developer', 'gpt', 'openai')?.key,
    'developer',
    'no vendor entry: the default',
  );
});

test("an offer whose efforts or web search the endpoint's adapter cannot send is refused", () => {
  const claudeOnOpenai = problemsOf(
    file({ developer: { vendors: { openai, anthropic: openai, google: gemini } } }),
  );
  assert.ok(
    claudeOnOpenai.includes(
      "providers.developer.vendors.anthropic: claude-opus-4-8 effort 'low' is a 'anthropic-adaptive' expression, which adapter 'openai' cannot send",
    ),
    claudeOnOpenai.join('\n'),
  );
  assert.ok(
    claudeOnOpenai.includes(
      "providers.developer.vendors.anthropic: claude-sonnet-4-5-20250929 effort 'high' is a 'anthropic-budget' expression, which adapter 'openai' cannot send",
    ),
  );
  const bedrock = { adapter: 'bedrock-converse', region: 'us-east-1' };
  const webSearch = problemsOf(
    file({ cloud_b: { vendors: { anthropic: bedrock, google: { adapter: 'vertex-gemini', ...vertex } } } }),
  );
  assert.ok(
    webSearch.includes(
      "providers.cloud_b.vendors.anthropic: claude-haiku-4-5-20251001 offers web search, which adapter 'bedrock-converse' has no tool for",
    ),
    webSearch.join('\n'),
  );
  assert.ok(
    webSearch.every((problem) => problem.includes('web search')),
    'Claude efforts fit Bedrock',
  );
});

test('secrets are read from env: and path: locations at start-up', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'upstreams-'));
  try {
    writeFileSync(join(dir, 'key'), 'file-secret\n');
    const { upstreams } = build(
      file({
        developer: {
          vendors: {
            openai: { ...openai, auth: { type: 'bearer', token: 'env:OPENAI_KEY' } },
            anthropic: {
              ...anthropic,
              auth: { type: 'api-key', header: 'x-api-key', key: `path:${join(dir, 'key')}` },
            },
            google: gemini,
          },
        },
      }),
      { env: { OPENAI_KEY: 'env-secret' } },
    );
    assert.deepEqual(await credentialsOf(upstreams.endpoint('developer', 'gpt', 'openai')), {
      authorization: 'Bearer env-secret',
    });
    assert.deepEqual(await credentialsOf(upstreams.endpoint('developer', 'claude-opus', 'anthropic')), {
      'x-api-key': 'file-secret',
    });
    assert.deepEqual(await credentialsOf(upstreams.endpoint('developer', 'gemini-pro', 'google')), {});
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a literal secret in the file is rejected; a missing secret names its location, never a value', () => {
  const withAuth = (auth: unknown) =>
    file({ developer: { vendors: { openai: { ...openai, auth }, anthropic, google: gemini } } });
  const literal = problemsOf(withAuth({ type: 'bearer', token: 'sk-live-123' }));
  assert.equal(literal.length, 1);
  assert.match(literal[0] ?? '', /^providers\.developer\.vendors\.openai\.auth\.token: must match pattern/);
  assert.ok(!literal[0]?.includes('sk-live-123'));
  const missing = problemsOf(withAuth({ type: 'bearer', token: 'env:NOPE' }), { env: { OTHER: 'sk-other' } });
  assert.deepEqual(missing, [
    'providers.developer.vendors.openai.auth: secret env:NOPE: environment variable is not set or empty',
  ]);
});

test('an unknown adapter or auth type lists the known ones; unknown fields are rejected', () => {
  const atCloudA = (entry: Record<string, unknown>) =>
    problemsOf(
      file({ cloud_a: { default: { adapter: 'bedrock-converse', region: 'us-east-1', ...entry } } }),
    );
  assert.deepEqual(atCloudA({ adapter: 'bedrock' }), [
    'providers.cloud_a.default.adapter: must be one of openai, openai-compatible, azure-openai, anthropic, bedrock-converse, vertex-claude, gemini, vertex-gemini',
  ]);
  assert.deepEqual(atCloudA({ auth: { type: 'sigv4' } }), [
    'providers.cloud_a.default.auth.type: must be one of none, api-key, bearer, azure-entra, aws-sigv4, google-service-account, aws-default-chain, google-adc, azure-managed-identity, azure-default',
  ]);
  assert.deepEqual(atCloudA({ retries: 3 }), ['providers.cloud_a.default.retries: unknown field']);
  assert.deepEqual(problemsOf(file({ cloud_a: { default: { adapter: 'bedrock-converse' } } })), [
    'providers.cloud_a.default.region: required',
  ]);
});

test('every provider the catalog uses needs an endpoint; unknown vendors and families are reported', () => {
  const problems = problemsOf(
    file({
      cloud_c: undefined,
      cloud_b: {
        vendors: { google: { adapter: 'vertex-gemini', ...vertex }, mistral: openai },
        families: { 'gemini-ultra': gemini },
      },
    }),
  );
  assert.ok(problems.includes('providers.cloud_b.vendors.mistral: unknown vendor'), problems.join('\n'));
  assert.ok(problems.includes('providers.cloud_b.families.gemini-ultra: unknown family'));
  assert.ok(problems.some((p) => p.startsWith("providers.cloud_c: serves family 'gpt'")));
  assert.ok(problems.some((p) => p.startsWith("providers.cloud_b: serves family 'claude-opus'")));
});
