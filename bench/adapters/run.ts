/**
 * Translation benchmark (a script, not a test): what each adapter costs per call, in-process,
 * against a baseline measured in the same run — `JSON.parse` + `JSON.stringify` of the same
 * bytes, the least any JSON proxy must do. For each adapter: building the upstream request
 * from the internal model (the translation path) and from a same-API body where it has one,
 * parsing the canonical completion, and translating the canonical stream (per chunk).
 *
 *   npm run bench:adapters -- [--seconds 0.5]
 *
 * Targets: request build + response parse under 20 us, under 2 us per stream chunk.
 */
import { parseArgs } from 'node:util';
import {
  ADAPTERS,
  type AdapterId,
  type BuildInput,
  type ProviderAdapter,
  type WireApi,
} from '../../packages/provider-adapters/src/index.ts';
import { anthropicConformanceFixtures } from '../../packages/provider-adapters/src/anthropic/fixtures.ts';
import { bedrockConformanceFixtures } from '../../packages/provider-adapters/src/bedrock-converse/fixtures.ts';
import { canonicalBuildInput } from '../../packages/provider-adapters/src/conformance/canonical.ts';
import type { ConformanceFixtures } from '../../packages/provider-adapters/src/conformance/scenarios.ts';
import { geminiConformanceFixtures } from '../../packages/provider-adapters/src/gemini/fixtures.ts';
import { openAIConformanceFixtures } from '../../packages/provider-adapters/src/openai/fixtures.ts';
import { vertexClaudeConformanceFixtures } from '../../packages/provider-adapters/src/vertex-claude/fixtures.ts';
import { vertexGeminiConformanceFixtures } from '../../packages/provider-adapters/src/vertex-gemini/fixtures.ts';

const { values: args } = parseArgs({ options: { seconds: { type: 'string', default: '0.5' } } });
const SECONDS = Number(args.seconds);
const TARGET_CALL_US = 20;
const TARGET_CHUNK_US = 2;

const FIXTURES: Readonly<Record<AdapterId, ConformanceFixtures>> = {
  openai: openAIConformanceFixtures,
  'openai-compatible': openAIConformanceFixtures,
  'azure-openai': openAIConformanceFixtures,
  anthropic: anthropicConformanceFixtures,
  'vertex-claude': vertexClaudeConformanceFixtures,
  'bedrock-converse': bedrockConformanceFixtures,
  gemini: geminiConformanceFixtures,
  'vertex-gemini': vertexGeminiConformanceFixtures,
};

/** Microseconds per call of `work`, over at least SECONDS after a warm-up. */
function measure(work: () => unknown): number {
  for (let i = 0; i < 2_000; i++) work();
  let calls = 0;
  const start = process.hrtime.bigint();
  const budget = BigInt(Math.round(SECONDS * 1e9));
  let elapsed = 0n;
  while (elapsed < budget) {
    for (let i = 0; i < 500; i++) work();
    calls += 500;
    elapsed = process.hrtime.bigint() - start;
  }
  return Number(elapsed) / 1_000 / calls;
}

/** The client API other than the adapter's own: its output is decoded, not passed through. */
function foreign(adapter: ProviderAdapter): WireApi {
  return adapter.wireApi === 'openai-responses' ? 'openai-chat' : 'openai-responses';
}

function sameApiInput(adapter: ProviderAdapter, input: BuildInput): BuildInput | undefined {
  if (adapter.wireApi !== 'openai-chat') return undefined;
  const body = { model: 'm', messages: [{ role: 'user', content: 'What is the capital of France?' }] };
  return { ...input, source: { api: 'openai-chat', body } };
}

/** The JSON payloads of a stream: SSE `data:` lines, or AWS event-stream frames' payloads. */
function payloads(bytes: Uint8Array): string[] {
  const text = new TextDecoder().decode(bytes);
  if (text.includes('data:'))
    return text
      .split(/\r?\n/)
      .filter((line) => line.startsWith('data:'))
      .map((line) => line.slice(5).trim())
      .filter((data) => data.startsWith('{'));
  const out: string[] = [];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = 0; at + 12 <= bytes.length;) {
    const total = view.getUint32(at);
    const headers = view.getUint32(at + 4);
    out.push(new TextDecoder().decode(bytes.subarray(at + 12 + headers, at + total - 4)));
    at += total;
  }
  return out;
}

const baselineBody = openAIConformanceFixtures.textCompletion;
const baseline = measure(() => JSON.stringify(JSON.parse(baselineBody)));
console.log(`baseline: JSON.parse + JSON.stringify of a completion: ${baseline.toFixed(2)} us`);
console.log('stream baseline: JSON.parse of each event payload, per chunk, shown beside each adapter\n');
console.log(
  '| adapter | build (translated) | build (same API) | parse | build + parse | vs baseline | stream per chunk | chunk baseline | stream set-up | same-API stream per chunk |',
);
console.log('|---|---|---|---|---|---|---|---|---|---|');
let missed = 0;
for (const [id, adapter] of Object.entries(ADAPTERS) as Array<[AdapterId, ProviderAdapter]>) {
  const fixtures = FIXTURES[id];
  const input = canonicalBuildInput(false);
  const build = measure(() => adapter.buildRequest(input));
  const same = sameApiInput(adapter, input);
  const buildSame = same ? measure(() => adapter.buildRequest(same)) : undefined;
  const context = { clientApi: foreign(adapter) };
  const parse = measure(() => adapter.parseResponse(fixtures.textCompletion, context));
  const events = payloads(fixtures.textStream);
  const chunks = events.length;
  // Per chunk, without the per-stream set-up (a translator's creation and end), shown apart.
  const setupOf = (clientApi: WireApi) => measure(() => adapter.createStreamTranslator({ clientApi }).end());
  const streamOf = (clientApi: WireApi) =>
    (measure(() => {
      const translator = adapter.createStreamTranslator({ clientApi });
      translator.push(fixtures.textStream);
      translator.end();
    }) -
      setupOf(clientApi)) /
    chunks;
  const setup = setupOf(context.clientApi);
  const perChunk = streamOf(context.clientApi);
  const native = adapter.wireApi ? streamOf(adapter.wireApi) : undefined;
  const chunkBaseline = measure(() => events.map((data) => JSON.parse(data))) / chunks;
  const call = build + parse;
  if (call > TARGET_CALL_US || perChunk > TARGET_CHUNK_US) missed++;
  const cells = [
    id,
    `${build.toFixed(2)} us`,
    buildSame === undefined ? '-' : `${buildSame.toFixed(2)} us`,
    `${parse.toFixed(2)} us`,
    `${call.toFixed(2)} us ${call <= TARGET_CALL_US ? '(ok)' : '(over 20)'}`,
    `${(call / baseline).toFixed(1)}x`,
    `${perChunk.toFixed(2)} us over ${chunks} ${perChunk <= TARGET_CHUNK_US ? '(ok)' : '(over 2)'}`,
    `${chunkBaseline.toFixed(2)} us`,
    `${setup.toFixed(2)} us`,
    native === undefined ? '-' : `${native.toFixed(2)} us`,
  ];
  console.log(`| ${cells.join(' | ')} |`);
}
console.log(`\n${missed === 0 ? 'every adapter meets both targets' : `${missed} adapter(s) miss a target`}`);
