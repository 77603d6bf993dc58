import type { StreamEvent, StreamTranslator, TokenUsage } from '../adapter.ts';
import type { ChatCompletionChunk, JsonObject } from '../openai-types.ts';
import { isJsonObject } from '../openai-types.ts';

export interface CollectedStream {
  readonly events: readonly StreamEvent[];
  readonly chunks: readonly ChatCompletionChunk[];
  readonly text: string;
  readonly finishReasons: readonly string[];
  readonly toolCalls: ReadonlyArray<{ id: string | undefined; name: string; arguments: string }>;
  readonly usage: TokenUsage | undefined;
  readonly usageChunks: readonly ChatCompletionChunk[];
  readonly done: boolean;
}

/** Feeds `bytes` to a translator cut at `splits` (the network cuts anywhere) and gathers what came out. */
export function collectStream(
  translator: StreamTranslator,
  bytes: Uint8Array,
  splits: readonly number[] = [],
): CollectedStream {
  const events: StreamEvent[] = [];
  let start = 0;
  for (const end of [...splits, bytes.length]) {
    events.push(...translator.push(bytes.subarray(start, end)));
    start = end;
  }
  events.push(...translator.end());
  return summarise(events);
}

function summarise(events: readonly StreamEvent[]): CollectedStream {
  const chunks: ChatCompletionChunk[] = [];
  const usageChunks: ChatCompletionChunk[] = [];
  const toolCalls: Array<{ id: string | undefined; name: string; arguments: string }> = [];
  const finishReasons: string[] = [];
  let text = '';
  let usage: TokenUsage | undefined;
  for (const event of events) {
    if (event.type === 'usage') {
      usage = event.usage;
      if (event.chunk) usageChunks.push(event.chunk);
    }
    if (event.type !== 'chunk') continue;
    chunks.push(event.chunk);
    for (const choice of event.chunk.choices) {
      const delta = isJsonObject(choice.delta) ? choice.delta : {};
      if (typeof delta.content === 'string') text += delta.content;
      if (typeof choice.finish_reason === 'string') finishReasons.push(choice.finish_reason);
      if (Array.isArray(delta.tool_calls)) mergeToolCalls(toolCalls, delta.tool_calls);
    }
  }
  const done = events.at(-1)?.type === 'done';
  return { events, chunks, text, finishReasons, toolCalls, usage, usageChunks, done };
}

function mergeToolCalls(
  calls: Array<{ id: string | undefined; name: string; arguments: string }>,
  deltas: readonly unknown[],
): void {
  for (const raw of deltas) {
    if (!isJsonObject(raw) || typeof raw.index !== 'number') continue;
    const fn: JsonObject = isJsonObject(raw.function) ? raw.function : {};
    const call = calls[raw.index] ?? { id: undefined, name: '', arguments: '' };
    calls[raw.index] = call;
    if (typeof raw.id === 'string') call.id = raw.id;
    if (typeof fn.name === 'string') call.name += fn.name;
    if (typeof fn.arguments === 'string') call.arguments += fn.arguments;
  }
}
