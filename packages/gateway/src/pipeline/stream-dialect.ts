/**
 * What a client API's streamed answer looks like (its `StreamDialect`) and the facts about the
 * internal events that every dialect shares: which are the answer itself, and how many
 * generated characters each carries.
 */
import type { AppError } from '@app/http-kit';
import type { StreamEvent } from '@app/provider-adapters';

export type NativeEvent = Extract<StreamEvent, { type: 'native' }>;

/**
 * The request's cost in US dollars once the stream's usage is known (undefined before): what
 * the ledger will charge, for the chunk or event that carries the usage (see answer-cost.ts).
 */
export type CostNow = () => number | undefined;

/** How one client API writes a stream. */
export interface StreamDialect {
  /** An event of the upstream's own API (same API as the client's): wire text and generated characters. */
  native(event: NativeEvent, cost: CostNow): { readonly text: string; readonly chars: number };
  /** An event of the internal model as wire text ('' for events the API does not show). */
  encode(event: StreamEvent, cost: CostNow): string;
  /** What ends a complete stream after the last event (e.g. `data: [DONE]`). */
  readonly terminator: string;
  /** A stream the upstream ended without its end marker still counts as complete once usage came. */
  readonly completeOnUsage: boolean;
  errorEvent(error: AppError): string;
  /**
   * The response headers and what is written while the upstream is silent, when the API does
   * not stream server-sent events (Gemini's JSON array): SSE's and a comment otherwise.
   */
  readonly framing?: { readonly headers: Readonly<Record<string, string>>; readonly keepAlive: string };
}

export const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache',
  // Reverse proxies (nginx) must not buffer the stream.
  'x-accel-buffering': 'no',
} as const;
export const KEEP_ALIVE = ': keep-alive\n\n';

/** Events that are the answer itself: once one is sent, the stream belongs to this attempt. */
export const CONTENT: ReadonlySet<StreamEvent['type']> = new Set([
  'text',
  'citation',
  'thinking',
  'redacted_thinking',
  'tool_call_start',
  'tool_call_delta',
  'server_tool',
  'finish',
]);

/** Characters of generated text in an internal event (the estimate when usage never comes). */
export function generatedChars(event: StreamEvent): number {
  if (event.type === 'text') return event.text.length;
  if (event.type === 'thinking') return event.text?.length ?? 0;
  if (event.type === 'tool_call_delta') return event.arguments.length;
  return 0;
}
