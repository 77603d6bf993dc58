/** The adapters' canonical fixtures, and their streams cut into the events an upstream sends. */
import type { AdapterId } from '../../packages/provider-adapters/src/index.ts';
import { anthropicConformanceFixtures } from '../../packages/provider-adapters/src/anthropic/fixtures.ts';
import { bedrockConformanceFixtures } from '../../packages/provider-adapters/src/bedrock-converse/fixtures.ts';
import type { ConformanceFixtures } from '../../packages/provider-adapters/src/conformance/scenarios.ts';
import { geminiConformanceFixtures } from '../../packages/provider-adapters/src/gemini/fixtures.ts';
import { openAIConformanceFixtures } from '../../packages/provider-adapters/src/openai/fixtures.ts';
import { vertexClaudeConformanceFixtures } from '../../packages/provider-adapters/src/vertex-claude/fixtures.ts';
import { vertexGeminiConformanceFixtures } from '../../packages/provider-adapters/src/vertex-gemini/fixtures.ts';

export const FIXTURES: Readonly<Record<AdapterId, ConformanceFixtures>> = {
  openai: openAIConformanceFixtures,
  'openai-compatible': openAIConformanceFixtures,
  'azure-openai': openAIConformanceFixtures,
  anthropic: anthropicConformanceFixtures,
  'vertex-claude': vertexClaudeConformanceFixtures,
  'bedrock-converse': bedrockConformanceFixtures,
  gemini: geminiConformanceFixtures,
  'vertex-gemini': vertexGeminiConformanceFixtures,
};

const PRELUDE = 12;
const utf8 = new TextDecoder();

/** AWS event-stream frames start with their total length; SSE is text. */
function isEventStream(bytes: Uint8Array): boolean {
  return !utf8.decode(bytes.subarray(0, 64)).includes('data:');
}

export interface StreamChunks {
  /** One piece per upstream event: each SSE event with its blank line, or each frame. */
  readonly pieces: Uint8Array[];
  /** Their JSON payloads: what any proxy reading the events must at least parse. */
  readonly payloads: string[];
}

export function streamChunks(bytes: Uint8Array): StreamChunks {
  return isEventStream(bytes) ? frames(bytes) : sseEvents(bytes);
}

function frames(bytes: Uint8Array): StreamChunks {
  const pieces: Uint8Array[] = [];
  const payloads: string[] = [];
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  for (let at = 0; at + PRELUDE <= bytes.length; at += view.getUint32(at)) {
    const end = at + view.getUint32(at);
    pieces.push(bytes.slice(at, end));
    payloads.push(utf8.decode(bytes.subarray(at + PRELUDE + view.getUint32(at + 4), end - 4)));
  }
  return { pieces, payloads };
}

function sseEvents(bytes: Uint8Array): StreamChunks {
  const events = utf8.decode(bytes).split(/(?<=\r?\n\r?\n)/);
  const payloads = events
    .flatMap((event) => event.split(/\r?\n/))
    .filter((line) => line.startsWith('data:'))
    .map((line) => line.slice(5).trim())
    .filter((data) => data.startsWith('{'));
  const encoder = new TextEncoder();
  return { pieces: events.map((event) => encoder.encode(event)), payloads };
}
