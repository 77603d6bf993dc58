/**
 * Translation benchmark (a script, not a test): what each adapter costs per call, in-process,
 * against baselines measured in the same run — `JSON.parse` + `JSON.stringify` of a completion,
 * the least any JSON proxy must do, and `JSON.parse` of each stream event's payload. For each
 * adapter: building the upstream request from the internal model (the translation path) and
 * from a same-API body where it has one, parsing the canonical completion, and translating the
 * canonical stream.
 *
 *   npm run bench:adapters -- [--seconds 0.4] [--rounds 10]
 *
 * A stream chunk is one upstream event (an SSE event, or an AWS event-stream frame), pushed to
 * the translator on its own as the network delivers it while a model generates; the per-stream
 * set-up (creating a translator and ending it) is measured apart and not counted per chunk.
 * Each figure is this process's CPU time per call, timed for `--seconds` (wall clock) in all, as
 * the best of `--rounds` short rounds spread over the whole run (rounds.ts): the machine is
 * shared, and other work only ever adds time.
 *
 * Targets (issue 8): request build + response parse under 20 us, under 2 us per stream chunk.
 */
import { parseArgs } from 'node:util';
import {
  ADAPTERS,
  type AdapterId,
  type BuildInput,
  type ProviderAdapter,
  type WireApi,
} from '../../packages/provider-adapters/src/index.ts';
import { canonicalBuildInput } from '../../packages/provider-adapters/src/conformance/canonical.ts';
import { openAIConformanceFixtures } from '../../packages/provider-adapters/src/openai/fixtures.ts';
import { embeddingsFigures } from './embeddings.ts';
import { eventStreamCodecCosts } from './event-stream-codec.ts';
import { type Figure, Rounds } from './rounds.ts';
import { FIXTURES, streamChunks } from './stream-chunks.ts';

const { values: args } = parseArgs({
  options: { seconds: { type: 'string', default: '0.4' }, rounds: { type: 'string', default: '10' } },
});
const bench = new Rounds(Number(args.seconds), Number(args.rounds));
const TARGET_CALL_US = 20;
const TARGET_CHUNK_US = 2;

/**
 * A client API the adapter does not speak: its output is decoded, not passed through. Not
 * Responses: the OpenAI adapter speaks it too, and would read a Chat answer as one.
 */
function foreign(adapter: ProviderAdapter): WireApi {
  return adapter.wireApi === 'anthropic-messages' ? 'openai-chat' : 'anthropic-messages';
}

const QUESTION = 'What is the capital of France?';

/** A client body of each API whose passthrough is measured. */
const SAME_API_BODIES: Partial<Record<WireApi, Record<string, unknown>>> = {
  'openai-chat': { model: 'm', messages: [{ role: 'user', content: QUESTION }] },
  'gemini-generate': { contents: [{ role: 'user', parts: [{ text: QUESTION }] }] },
};

function sameApiInput(adapter: ProviderAdapter, input: BuildInput): BuildInput | undefined {
  const body = adapter.wireApi === undefined ? undefined : SAME_API_BODIES[adapter.wireApi];
  if (adapter.wireApi === undefined || body === undefined) return undefined;
  return { ...input, source: { api: adapter.wireApi, body } };
}

/** Microseconds per chunk of translating `pieces` (each pushed on its own), set-up excluded. */
function perChunk(
  adapter: ProviderAdapter,
  clientApi: WireApi,
  pieces: readonly Uint8Array[],
  chunks: number,
  setup: Figure = bench.add(() => adapter.createStreamTranslator({ clientApi }).end()),
): { setup: Figure; perChunk: Figure } {
  const whole = bench.add(() => {
    const translator = adapter.createStreamTranslator({ clientApi });
    for (const piece of pieces) translator.push(piece);
    translator.end();
  });
  return { setup, perChunk: () => Math.max(0, whole() - setup()) / chunks };
}

interface Row {
  readonly id: AdapterId;
  readonly build: Figure;
  readonly buildSame: Figure | undefined;
  readonly parse: Figure;
  readonly chunks: number;
  readonly chunk: Figure;
  readonly chunkBaseline: Figure;
  readonly onePush: Figure;
  readonly nativeChunk: Figure | undefined;
  readonly setup: Figure;
}

function adapterFigures(id: AdapterId, adapter: ProviderAdapter): Row {
  const fixtures = FIXTURES[id];
  const input = canonicalBuildInput(false);
  const same = sameApiInput(adapter, input);
  const clientApi = foreign(adapter);
  const { pieces, payloads } = streamChunks(fixtures.textStream);
  const chunks = pieces.length;
  const translated = perChunk(adapter, clientApi, pieces, chunks);
  const chunkBaseline = bench.add(() => payloads.map((data) => JSON.parse(data) as unknown));
  return {
    id,
    build: bench.add(() => adapter.buildRequest(input)),
    buildSame: same ? bench.add(() => adapter.buildRequest(same)) : undefined,
    parse: bench.add(() => adapter.parseResponse(fixtures.textCompletion, { clientApi })),
    chunks,
    chunk: translated.perChunk,
    chunkBaseline: () => chunkBaseline() / chunks,
    onePush: perChunk(adapter, clientApi, [fixtures.textStream], chunks, translated.setup).perChunk,
    nativeChunk: adapter.wireApi ? perChunk(adapter, adapter.wireApi, pieces, chunks).perChunk : undefined,
    setup: translated.setup,
  };
}

const us = (value: number) => `${value.toFixed(2)} us`;
const verdict = (value: number, target: number) => (value <= target ? 'PASS' : 'FAIL');

function cells(row: Row, baseline: number): string[] {
  const call = row.build() + row.parse();
  const chunk = row.chunk();
  return [
    row.id,
    us(row.build()),
    row.buildSame === undefined ? '-' : us(row.buildSame()),
    us(row.parse()),
    `${us(call)} (${(call / baseline).toFixed(1)}x)`,
    verdict(call, TARGET_CALL_US),
    `${us(chunk)} over ${row.chunks}`,
    `${us(row.chunkBaseline())} (${(chunk / row.chunkBaseline()).toFixed(1)}x)`,
    verdict(chunk, TARGET_CHUNK_US),
    us(row.onePush()),
    row.nativeChunk === undefined ? '-' : us(row.nativeChunk()),
    us(row.setup()),
  ];
}

const HEADER = [
  'adapter',
  'build (translated)',
  'build (same API)',
  'parse',
  'build + parse (vs baseline)',
  `< ${TARGET_CALL_US} us`,
  'stream per chunk',
  'JSON.parse per chunk (ratio)',
  `< ${TARGET_CHUNK_US} us`,
  'per chunk, body in one push',
  'same-API per chunk',
  'stream set-up',
];

const baseline = bench.add(() => JSON.stringify(JSON.parse(openAIConformanceFixtures.textCompletion)));
const rows = (Object.entries(ADAPTERS) as Array<[AdapterId, ProviderAdapter]>).map(([id, adapter]) =>
  adapterFigures(id, adapter),
);
const codec = eventStreamCodecCosts((work) => bench.add(work));
const embeddings = await embeddingsFigures((work) => bench.add(work));
bench.run();

console.log(`baseline: JSON.parse + JSON.stringify of a completion: ${us(baseline())}`);
console.log('CPU time per call, best round; a chunk is one upstream event, pushed on its own\n');
console.log(`| ${HEADER.join(' | ')} |`);
console.log(`|${'---|'.repeat(HEADER.length)}`);
const failed: string[] = [];
for (const row of rows) {
  if (row.build() + row.parse() > TARGET_CALL_US || row.chunk() > TARGET_CHUNK_US) failed.push(row.id);
  console.log(`| ${cells(row, baseline()).join(' | ')} |`);
}
console.log(
  failed.length === 0
    ? `\nPASS: every adapter is under ${TARGET_CALL_US} us per build + parse and ${TARGET_CHUNK_US} us per stream chunk`
    : `\nFAIL: ${failed.join(', ')} over a target`,
);
console.log(`\n${codec().join('\n')}`);
printEmbeddings();

/** Embeddings: a 16-text batch, built and parsed per adapter; the parse against JSON.parse of the answers. */
function printEmbeddings(): void {
  const header = [
    'embeddings adapter (16 texts)',
    'upstream calls',
    'build',
    'parse',
    'JSON.parse of the answers',
    'parse ratio',
    'build + parse per text',
  ];
  console.log(`\n| ${header.join(' | ')} |`);
  console.log(`|${'---|'.repeat(header.length)}`);
  for (const row of embeddings.rows) {
    const ratio = row.parse() / row.baseline();
    const perText = (row.build() + row.parse()) / 16;
    console.log(
      `| ${[row.label, row.calls, us(row.build()), us(row.parse()), us(row.baseline()), `${ratio.toFixed(2)}x`, us(perText)].join(' | ')} |`,
    );
  }
  const { encode } = embeddings;
  console.log(
    `\nOpenAI answer of 16 x 1024: float ${us(encode.float())} (${(encode.float() / encode.baseline()).toFixed(2)}x JSON.stringify of the vectors, ${us(encode.baseline())}), base64 ${us(encode.base64())} (${(encode.base64() / encode.baseline()).toFixed(2)}x)`,
  );
}
