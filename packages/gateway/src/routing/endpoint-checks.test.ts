/**
 * Deployment mistakes that upstream shows only on the first request, refused at start-up
 * (routing as the gateway starts it, from GATEWAY_UPSTREAMS_PATH) and by `catalog-check`
 * (without reading any secret), each naming the setting.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { CatalogError } from './catalog.ts';
import { checkFiles } from './catalog-check.ts';
import {
  buildTestUpstreams,
  startRouting,
  TEST_ENDPOINTS,
  upstreamsFile,
  upstreamsProblems,
} from './testing.ts';

const dir = mkdtempSync(join(tmpdir(), 'endpoint-checks-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const sigv4 = (region: string) => ({
  type: 'aws-sigv4',
  region,
  accessKeyId: 'env:AWS_ACCESS_KEY_ID',
  secretAccessKey: 'env:AWS_SECRET_ACCESS_KEY',
});
const AWS_ENV = { AWS_ACCESS_KEY_ID: 'AKIATESTEXAMPLE00001', AWS_SECRET_ACCESS_KEY: 'test-secret' };
const bedrock = (entry: Record<string, unknown>) =>
  upstreamsFile({ cloud_a: { default: { adapter: 'bedrock-converse', ...entry } } });

let written = 0;
function fileOf(content: unknown): string {
  const path = join(dir, `upstreams-${written++}.json`);
  writeFileSync(path, JSON.stringify(content));
  return path;
}

/** The problems start-up stops on, and those catalog-check prints (no secret read). */
async function bothRefuse(content: unknown): Promise<{ startup: readonly string[]; check: string[] }> {
  const path = fileOf(content);
  let startup: readonly string[] = [];
  await assert.rejects(startRouting({ GATEWAY_UPSTREAMS_PATH: path }, AWS_ENV), (error: unknown) => {
    assert.ok(error instanceof CatalogError, String(error));
    startup = error.problems;
    return true;
  });
  const result = await checkFiles({ upstreams: path }, {});
  assert.equal(result.ok, false);
  return { startup, check: result.lines.slice(1).map((line) => line.replace(/^ {2}- /, '')) };
}

describe('a Bedrock signature scoped to another region than the endpoint', () => {
  test("auth.region other than the endpoint's region: refused at start-up and by catalog-check", async () => {
    const { startup, check } = await bothRefuse(
      bedrock({ region: 'eu-central-1', auth: sigv4('us-east-1') }),
    );
    const expected = [
      "providers.cloud_a.default.auth.region: 'us-east-1' differs from the endpoint's region 'eu-central-1' (providers.cloud_a.default.region); the upstream refuses a signature scoped to another region",
    ];
    assert.deepEqual(startup, expected);
    assert.deepEqual(check, expected);
  });

  test('the region of a FIPS or VPC endpoint host is the endpoint region', () => {
    const fips = 'https://bedrock-runtime-fips.us-east-1.amazonaws.com';
    assert.deepEqual(
      upstreamsProblems(bedrock({ region: 'us-east-1', baseUrl: fips, auth: sigv4('us-west-2') })),
      [
        `providers.cloud_a.default.auth.region: 'us-west-2' differs from the endpoint's region 'us-east-1' (providers.cloud_a.default.baseUrl); the upstream refuses a signature scoped to another region`,
      ],
    );
    const vpce = 'https://vpce-0a1b2c3d4e5f60718-abcdefgh.bedrock-runtime.eu-west-1.vpce.amazonaws.com';
    const chain = upstreamsProblems(
      bedrock({ region: 'us-east-1', baseUrl: vpce, auth: { type: 'aws-default-chain' } }),
    );
    assert.deepEqual(chain, [
      `providers.cloud_a.default.region: 'us-east-1' differs from 'eu-west-1', the region of providers.cloud_a.default.baseUrl's host vpce-0a1b2c3d4e5f60718-abcdefgh.bedrock-runtime.eu-west-1.vpce.amazonaws.com`,
    ]);
  });

  test('matching regions start; a custom host without a recognisable region is left to auth.region', async () => {
    const matching = buildTestUpstreams(bedrock({ region: 'eu-central-1', auth: sigv4('eu-central-1') }), {
      env: AWS_ENV,
    });
    await matching.upstreams.close();
    const proxy = bedrock({
      region: 'eu-central-1',
      baseUrl: 'https://bedrock.proxy.corp.example',
      auth: sigv4('us-east-1'),
    });
    const custom = buildTestUpstreams(proxy, { env: AWS_ENV });
    assert.equal(custom.upstreams.endpoint('cloud_a', 'claude-opus', 'anthropic')?.signer.kind, 'aws-sigv4');
    await custom.upstreams.close();
  });
});

describe('a Vertex service-account key with its own token_uri', () => {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const key = JSON.stringify({
    type: 'service_account',
    client_email: 'gateway@acme-ai.iam.gserviceaccount.com',
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    token_uri: 'https://oauth2.acme-private.example/token',
  });
  const vertexWith = (tokenUrl: string) => {
    const auth = { type: 'google-service-account', credentials: 'env:VERTEX_KEY', tokenUrl };
    const { vertex } = TEST_ENDPOINTS;
    return upstreamsFile({
      cloud_b: {
        vendors: {
          anthropic: { adapter: 'vertex-claude', ...vertex, auth },
          google: { adapter: 'vertex-gemini', ...vertex },
        },
      },
    });
  };

  test('and a tokenUrl naming another endpoint: refused at start-up and by catalog-check --credentials', async () => {
    const path = fileOf(vertexWith('https://oauth2.googleapis.com/token'));
    const expected =
      "providers.cloud_b.vendors.anthropic.auth: secret env:VERTEX_KEY: the key's token_uri https://oauth2.acme-private.example/token differs from tokenUrl https://oauth2.googleapis.com/token; keep one of them";
    await assert.rejects(
      startRouting({ GATEWAY_UPSTREAMS_PATH: path }, { VERTEX_KEY: key }),
      (error: unknown) => {
        assert.ok(error instanceof CatalogError);
        assert.deepEqual(error.problems, [expected]);
        return true;
      },
    );
    const check = await checkFiles({ upstreams: path }, { VERTEX_KEY: key }, { credentials: true });
    assert.equal(check.ok, false);
    assert.ok(check.lines.includes(`  - ${expected}`), check.lines.join('\n'));
    const same = await startRouting(
      { GATEWAY_UPSTREAMS_PATH: fileOf(vertexWith('https://oauth2.acme-private.example/token')) },
      { VERTEX_KEY: key },
    );
    await same.close();
  });
});

describe('a base URL without the path its adapter needs', () => {
  const { vertex } = TEST_ENDPOINTS;
  const cases = [
    ['developer', 'openai', { adapter: 'openai', baseUrl: 'https://api.openai.com' }, '/v1'],
    [
      'developer',
      'google',
      { adapter: 'gemini', baseUrl: 'https://generativelanguage.googleapis.com' },
      '/v1beta',
    ],
    [
      'cloud_b',
      'anthropic',
      { adapter: 'vertex-claude', ...vertex, baseUrl: 'https://aiplatform.googleapis.com' },
      '/v1',
    ],
    [
      'cloud_b',
      'google',
      { adapter: 'vertex-gemini', ...vertex, baseUrl: 'https://aiplatform.googleapis.com/' },
      '/v1',
    ],
    ['cloud_c', 'openai', { adapter: 'azure-openai', baseUrl: 'https://acme.openai.azure.com' }, '/openai'],
  ] as const;

  for (const [provider, vendor, entry, suffix] of cases) {
    test(`${entry.adapter}: must end with ${suffix}`, async () => {
      const defaults = upstreamsFile().providers[provider] as { vendors?: Record<string, unknown> };
      const content = upstreamsFile({ [provider]: { vendors: { ...defaults.vendors, [vendor]: entry } } });
      const path = `providers.${provider}.vendors.${vendor}.baseUrl`;
      const shown = entry.baseUrl.replace(/\/$/, '');
      const expected = `${path}: must end with '${suffix}' (adapter '${entry.adapter}' appends only the API's paths after it), e.g. '${shown}${suffix}'`;
      const { startup, check } = await bothRefuse(content);
      assert.deepEqual(startup, [expected]);
      assert.deepEqual(check, [expected]);
    });
  }

  test('with the suffix (and a trailing slash) it starts; adapters that need none take any path', async () => {
    const content = upstreamsFile({
      developer: {
        vendors: {
          openai: { adapter: 'openai-compatible', baseUrl: 'https://gw.example/inference/openai' },
          anthropic: { adapter: 'anthropic', baseUrl: 'https://claude-proxy.corp.example/anthropic' },
          google: TEST_ENDPOINTS.gemini,
        },
      },
      cloud_c: { default: { adapter: 'azure-openai', baseUrl: 'https://acme.openai.azure.com/openai/' } },
    });
    const { upstreams } = buildTestUpstreams(content);
    assert.equal(
      upstreams.endpoint('cloud_c', 'gpt', 'openai')?.params.baseUrl,
      'https://acme.openai.azure.com/openai',
    );
    await upstreams.close();
  });
});
