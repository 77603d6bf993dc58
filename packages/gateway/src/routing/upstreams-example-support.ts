/**
 * Test support for the example upstreams file and the providers doc: the file validated with
 * fake credentials and a temporary service-account key, and the doc's blocks and tables read.
 */
import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import {
  adapterFor,
  type Effort,
  isJsonObject,
  type JsonObject,
  type ModelRequest,
  type Tier,
  type UpstreamHttpRequest,
} from '@app/provider-adapters';
import type { ProviderId } from '../contracts.ts';
import { CatalogError, type CatalogModel, type Offer } from './catalog.ts';
import { readJsonFile } from './index.ts';
import { bundledCatalog } from './testing.ts';
import { buildUpstreams, type Endpoint, type Upstreams } from './upstreams.ts';

export const EXAMPLE_PATH = fileURLToPath(new URL('../../catalog/upstreams.example.json', import.meta.url));
export const DOC_PATH = fileURLToPath(new URL('../../../../docs/gateway/providers.md', import.meta.url));
/** The service-account key location the example names (a mounted secret). */
export const KEY_LOCATION = 'path:/run/secrets/vertex-sa.json';

export const catalog = bundledCatalog();
export const example = readJsonFile(EXAMPLE_PATH) as {
  providers: Record<string, Record<string, Record<string, unknown>>>;
};
export const doc = readFileSync(DOC_PATH, 'utf8');

/** Fake credentials in the variables the example names; none is a real secret. */
export const ENV: Readonly<Record<string, string>> = {
  OPENAI_API_KEY: 'sk-test-openai-0001',
  ANTHROPIC_API_KEY: 'sk-ant-test-0002',
  GEMINI_API_KEY: 'AIzaTestKey0003',
  AWS_ACCESS_KEY_ID: 'AKIATESTEXAMPLE00004',
  AWS_SECRET_ACCESS_KEY: 'test/secret+access+key+0005',
  AZURE_OPENAI_API_KEY: 'test-azure-key-0006',
};

/**
 * The Vertex key: a service-account JSON with a freshly generated RSA key, as the simulator
 * generates its own (credentials.ts). `/run/secrets` is root-owned and may not exist where
 * tests run, so the example's one `path:` location is rewritten in memory to this temporary
 * file rather than writing there; everything else is validated exactly as the file says.
 */
export const dir = mkdtempSync(join(tmpdir(), 'upstreams-example-'));
export const keyFile = join(dir, 'vertex-sa.json');
export const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
writeFileSync(
  keyFile,
  JSON.stringify({
    type: 'service_account',
    project_id: 'contoso-gw-prod',
    private_key_id: 'test-key-1',
    private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    client_email: 'gateway@contoso-gw-prod.iam.gserviceaccount.com',
  }),
);

/** A deep copy with every `path:/run/secrets/vertex-sa.json` pointing at the temporary key. */
export function relocated(input: unknown): { file: unknown; replaced: number } {
  let replaced = 0;
  const file: unknown = JSON.parse(JSON.stringify(input), (_key, value: unknown) => {
    if (value !== KEY_LOCATION) return value;
    replaced += 1;
    return `path:${keyFile}`;
  });
  return { file, replaced };
}

export const opened: Upstreams[] = [];

/** Closes every upstreams object the tests opened and removes the temporary key. */
export async function cleanUp(): Promise<void> {
  await Promise.all(opened.map((upstreams) => upstreams.close()));
  rmSync(dir, { recursive: true, force: true });
}

export function build(input: unknown, env: Readonly<Record<string, string>> = ENV): Upstreams {
  const { upstreams, warnings } = buildUpstreams(input, {
    catalog,
    simulatorUrl: undefined,
    env,
    source: 'upstreams.example.json',
  });
  assert.deepEqual(warnings, []);
  opened.push(upstreams);
  return upstreams;
}

export function problemsOf(input: unknown, env: Readonly<Record<string, string>>): CatalogError {
  try {
    build(input, env);
  } catch (error) {
    assert.ok(error instanceof CatalogError, String(error));
    return error;
  }
  assert.fail('the upstreams file was accepted');
}

/** Where each (provider, vendor) of the catalog is meant to go, defaults included. */
export const EXPECTED: Readonly<Record<string, { adapter: string; baseUrl: string; signer: string }>> = {
  'developer/openai': { adapter: 'openai', baseUrl: 'https://api.openai.com/v1', signer: 'bearer' },
  'developer/anthropic': { adapter: 'anthropic', baseUrl: 'https://api.anthropic.com', signer: 'api-key' },
  'developer/google': {
    adapter: 'gemini',
    baseUrl: 'https://generativelanguage.googleapis.com/v1beta',
    signer: 'api-key',
  },
  'cloud_a/anthropic': {
    adapter: 'bedrock-converse',
    baseUrl: 'https://bedrock-runtime.us-east-1.amazonaws.com',
    signer: 'aws-sigv4',
  },
  'cloud_a/amazon': {
    adapter: 'bedrock-converse',
    baseUrl: 'https://bedrock-runtime.us-east-1.amazonaws.com',
    signer: 'aws-sigv4',
  },
  'cloud_a/cohere': {
    adapter: 'bedrock-converse',
    baseUrl: 'https://bedrock-runtime.us-east-1.amazonaws.com',
    signer: 'aws-sigv4',
  },
  'cloud_b/anthropic': {
    adapter: 'vertex-claude',
    baseUrl: 'https://aiplatform.googleapis.com/v1',
    signer: 'google-service-account',
  },
  'cloud_b/google': {
    adapter: 'vertex-gemini',
    baseUrl: 'https://aiplatform.googleapis.com/v1',
    signer: 'google-service-account',
  },
  'cloud_c/openai': {
    adapter: 'azure-openai',
    baseUrl: 'https://contoso-gw.openai.azure.com/openai',
    signer: 'api-key',
  },
};

export const upstreams = (() => {
  const { file, replaced } = relocated(example);
  assert.equal(replaced, 2, 'both Vertex endpoints name the key file');
  return build(file);
})();

export function endpointOf(provider: ProviderId, model: CatalogModel): Endpoint {
  const endpoint = upstreams.endpoint(provider, model.family, model.vendor);
  assert.ok(endpoint, `${model.id} on ${provider} has an endpoint`);
  return endpoint;
}

export function send(
  endpoint: Endpoint,
  offer: Offer,
  options: { effort?: Effort; tier?: Tier; stream?: boolean; webSearch?: boolean } = {},
): UpstreamHttpRequest {
  const request: ModelRequest = {
    system: [],
    turns: [{ role: 'user', content: [{ type: 'text', text: 'Hello' }] }],
    tools: options.webSearch ? [{ type: 'web_search' }] : [],
    stream: options.stream ?? false,
  };
  return adapterFor(endpoint.adapter).buildRequest({
    request,
    source: undefined,
    offer: offer.profile,
    endpoint: endpoint.params,
    reasoning: (options.effort && offer.profile.efforts[options.effort]) ?? { kind: 'omit' },
    tier: options.tier ?? 'standard',
  });
}

export function object(value: unknown): JsonObject {
  return isJsonObject(value) ? value : {};
}

export function bodyOf(request: UpstreamHttpRequest): JsonObject {
  return object(JSON.parse(request.body));
}

/** The doc's ```json block that follows `<!-- example: name -->`. */
export function docExample(name: string): unknown {
  const marker = `<!-- example: ${name} -->`;
  const at = doc.indexOf(marker);
  assert.ok(at >= 0, `providers.md has the marker ${marker}`);
  const block = /^\s*```json\n([\s\S]*?)\n```/.exec(doc.slice(at + marker.length));
  assert.ok(block, `a json block follows ${marker}`);
  return JSON.parse(block[1] ?? '');
}

/** The example with a doc snippet's provider sections laid over it (section by section). */
export function withSnippet(snippet: unknown): unknown {
  const merged = structuredClone(example);
  const providers = (snippet as { providers: Record<string, Record<string, Record<string, unknown>>> })
    .providers;
  for (const [provider, sections] of Object.entries(providers)) {
    const target = (merged.providers[provider] ??= {});
    for (const [section, entries] of Object.entries(sections))
      target[section] = { ...target[section], ...entries };
  }
  return merged;
}

/** Rows of the doc's tables between `<!-- table: name -->` and `<!-- /table -->`, by model id. */
export function docTable(name: string): Map<string, string[]> {
  const start = doc.indexOf(`<!-- table: ${name} -->`);
  assert.ok(start >= 0, `providers.md has the table ${name}`);
  const end = doc.indexOf('<!-- /table -->', start);
  const rows = new Map<string, string[]>();
  for (const line of doc.slice(start, end).split('\n')) {
    const match = /^\|\s*`([^`]+)`\s*\|(.*)\|\s*$/.exec(line);
    if (match?.[1] && match[2] !== undefined)
      rows.set(
        match[1],
        match[2].split('|').map((cell) => cell.trim()),
      );
  }
  return rows;
}

export const OPENAI_API = new Set(['openai', 'openai-compatible', 'azure-openai']);
export const GEMINI_API = new Set(['gemini', 'vertex-gemini']);

/** A doc cell from the body the adapter built: the upstream's own field names and values. */
export function effortCell(adapter: string, request: UpstreamHttpRequest): string {
  const body = bodyOf(request);
  if (OPENAI_API.has(adapter))
    return body.reasoning_effort === undefined
      ? 'omitted'
      : `\`reasoning_effort: ${JSON.stringify(body.reasoning_effort)}\``;
  if (GEMINI_API.has(adapter)) {
    const config = object(object(body.generationConfig).thinkingConfig);
    if (config.thinkingLevel !== undefined)
      return `\`thinkingLevel: ${JSON.stringify(config.thinkingLevel)}\``;
    if (config.thinkingBudget !== undefined) return `\`thinkingBudget: ${String(config.thinkingBudget)}\``;
    return 'omitted';
  }
  // Claude: Anthropic and Vertex in the body, Bedrock inside additionalModelRequestFields.
  const fields = adapter === 'bedrock-converse' ? object(body.additionalModelRequestFields) : body;
  const thinking = object(fields.thinking);
  const effort = object(fields.output_config).effort;
  const withEffort = effort === undefined ? '' : ` + output_config.effort: ${JSON.stringify(effort)}`;
  if (thinking.type === 'adaptive') return `\`thinking: adaptive${withEffort}\``;
  if (thinking.type === 'enabled')
    return `\`thinking.budget_tokens: ${String(thinking.budget_tokens)}${withEffort}\``;
  return 'thinking off';
}

export function flexCell(request: UpstreamHttpRequest): string {
  const body = bodyOf(request);
  if (body.service_tier === 'flex') return '`service_tier: "flex"`';
  if (body.serviceTier === 'flex') return '`serviceTier: "flex"`';
  if (request.headers['X-Vertex-AI-LLM-Shared-Request-Type'] === 'flex')
    return 'header `X-Vertex-AI-LLM-Shared-Request-Type: flex`';
  assert.fail(`no flex in ${request.url}`);
}
