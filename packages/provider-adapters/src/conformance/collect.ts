import type { StreamTranslator } from '../adapter.ts';
import type { Part } from '../model/content.ts';
import type { FinishReason, ModelResponse, StreamEvent, UpstreamFailure } from '../model/response.ts';
import type { Usage } from '../model/usage.ts';

export interface CollectedCall {
  id: string;
  name: string;
  arguments: string;
  signature?: string;
  /** How many `tool_call_start` events named this index (must be exactly one). */
  starts: number;
}

export interface CollectedStream {
  readonly events: readonly StreamEvent[];
  readonly text: string;
  readonly thinking: string;
  readonly thinkingSignature: string | undefined;
  readonly finishReasons: readonly FinishReason[];
  readonly toolCalls: readonly CollectedCall[];
  readonly usage: Usage | undefined;
  readonly errors: readonly UpstreamFailure[];
  readonly native: number;
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

export function summarise(events: readonly StreamEvent[]): CollectedStream {
  const toolCalls: CollectedCall[] = [];
  const finishReasons: FinishReason[] = [];
  const errors: UpstreamFailure[] = [];
  let text = '';
  let thinking = '';
  let thinkingSignature: string | undefined;
  let usage: Usage | undefined;
  let native = 0;
  for (const event of events) {
    switch (event.type) {
      case 'text':
        text += event.text;
        break;
      case 'thinking':
        thinking += event.text ?? '';
        if (event.signature !== undefined) thinkingSignature = (thinkingSignature ?? '') + event.signature;
        break;
      case 'tool_call_start': {
        const call = toolCalls[event.index] ?? { id: '', name: '', arguments: '', starts: 0 };
        toolCalls[event.index] = { ...call, id: event.id, name: event.name, starts: call.starts + 1 };
        if (event.signature !== undefined) toolCalls[event.index]!.signature = event.signature;
        break;
      }
      case 'tool_call_delta': {
        const call = toolCalls[event.index] ?? { id: '', name: '', arguments: '', starts: 0 };
        toolCalls[event.index] = { ...call, arguments: call.arguments + event.arguments };
        break;
      }
      case 'finish':
        finishReasons.push(event.reason);
        break;
      case 'usage':
        usage = event.usage;
        break;
      case 'error':
        errors.push(event.failure);
        break;
      case 'native':
        native++;
        break;
      default:
        break;
    }
  }
  const done = events.at(-1)?.type === 'done';
  return { events, text, thinking, thinkingSignature, finishReasons, toolCalls, usage, errors, native, done };
}

/** The text of a response's text parts, joined. */
export function responseText(response: ModelResponse): string {
  return response.content
    .filter((part): part is Extract<Part, { type: 'text' }> => part.type === 'text')
    .map((part) => part.text)
    .join('');
}

export function responseToolCalls(response: ModelResponse): Array<Extract<Part, { type: 'tool_call' }>> {
  return response.content.filter(
    (part): part is Extract<Part, { type: 'tool_call' }> => part.type === 'tool_call',
  );
}
