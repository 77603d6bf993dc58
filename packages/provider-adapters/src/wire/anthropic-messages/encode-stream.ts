/**
 * Internal stream events -> the Messages event stream exactly as Anthropic sends it:
 * `message_start`, then per content block `content_block_start`, its deltas (`text_delta`,
 * `citations_delta`, `thinking_delta`, `signature_delta`, `input_json_delta`) and
 * `content_block_stop`, then `message_delta` (stop reason, cumulative usage) and `message_stop`.
 * One block is open at a time, as Anthropic streams them.
 */
import type { JsonObject } from '../../json.ts';
import type { FinishReason, ServedTier, StreamEvent } from '../../model/response.ts';
import { packToolCallId } from '../../model/tool-call-id.ts';
import { NO_USAGE, type Usage } from '../../model/usage.ts';
import { citationBlock, type MessageEnvelope, stopReason, usageToAnthropic } from './encode-response.ts';

export interface MessagesSseEvent {
  readonly event: string;
  readonly data: JsonObject;
}

/** One event as SSE text: `event:` line, `data:` line (the JSON carries the type too). */
export function formatMessagesEvent(event: MessagesSseEvent): string {
  return `event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

function sse(event: string, fields: JsonObject = {}): MessagesSseEvent {
  return { event, data: { type: event, ...fields } };
}

type BlockKind = 'text' | 'thinking' | 'tool';

export class MessagesEventEncoder {
  readonly #envelope: MessageEnvelope;
  #started = false;
  /** The open block's index and kind; -1: none open. */
  #index = -1;
  #kind: BlockKind | undefined;
  #next = 0;
  /** Tool call number (from 0 in the response) -> its content block index. */
  readonly #toolBlocks = new Map<number, number>();
  #reason: FinishReason = 'stop';
  #usage: Usage | undefined;
  #tier: ServedTier | undefined;

  constructor(envelope: MessageEnvelope) {
    this.#envelope = envelope;
  }

  /** The Messages events for one internal event; `error` and `native` are the caller's to send. */
  encode(event: StreamEvent): MessagesSseEvent[] {
    switch (event.type) {
      case 'usage':
        this.#usage = event.usage;
        return [];
      case 'served_tier':
        this.#tier = event.tier;
        return [];
      case 'finish':
        this.#reason = event.reason;
        return [];
      case 'text':
        return this.#delta('text', { type: 'text_delta', text: event.text });
      case 'citation':
        return this.#delta('text', { type: 'citations_delta', citation: citationBlock(event.citation) });
      case 'thinking':
        return this.#thinking(event.text, event.signature);
      case 'redacted_thinking':
        return this.#whole({ type: 'redacted_thinking', data: event.data });
      case 'tool_call_start':
        return this.#toolStart(event.index, packToolCallId(event.id, event.signature), event.name);
      case 'tool_call_delta':
        return this.#toolDelta(event.index, event.arguments);
      case 'server_tool':
        return event.part.type === 'server_tool_call' || event.part.type === 'server_tool_result'
          ? this.#whole(event.part.payload)
          : [];
      case 'done':
        return this.#done();
      default:
        return [];
    }
  }

  #opening(): MessagesSseEvent[] {
    if (this.#started) return [];
    this.#started = true;
    const message = {
      id: this.#envelope.id,
      type: 'message',
      role: 'assistant',
      model: this.#envelope.model,
      content: [],
      stop_reason: null,
      stop_sequence: null,
      usage: usageToAnthropic(this.#usage ?? NO_USAGE, this.#tier),
    };
    return [sse('message_start', { message })];
  }

  #close(): MessagesSseEvent[] {
    if (this.#index < 0) return [];
    const stop = sse('content_block_stop', { index: this.#index });
    this.#index = -1;
    this.#kind = undefined;
    return [stop];
  }

  #open(kind: BlockKind, block: JsonObject): MessagesSseEvent[] {
    const events = [...this.#opening(), ...this.#close()];
    this.#index = this.#next++;
    this.#kind = kind;
    events.push(sse('content_block_start', { index: this.#index, content_block: block }));
    return events;
  }

  /** A delta for a block of `kind`, opening one when another kind (or none) is open. */
  #delta(kind: 'text' | 'thinking', delta: JsonObject): MessagesSseEvent[] {
    const events =
      this.#kind === kind
        ? []
        : this.#open(
            kind,
            kind === 'text' ? { type: 'text', text: '' } : { type: 'thinking', thinking: '', signature: '' },
          );
    events.push(sse('content_block_delta', { index: this.#index, delta }));
    return events;
  }

  #thinking(text: string | undefined, signature: string | undefined): MessagesSseEvent[] {
    const events: MessagesSseEvent[] = [];
    if (text !== undefined && text !== '')
      events.push(...this.#delta('thinking', { type: 'thinking_delta', thinking: text }));
    if (signature !== undefined && signature !== '')
      events.push(...this.#delta('thinking', { type: 'signature_delta', signature }));
    return events;
  }

  /** Blocks that arrive complete (redacted thinking, server tool blocks): start and stop at once. */
  #whole(block: JsonObject): MessagesSseEvent[] {
    const events = this.#open('text', block);
    return [...events, ...this.#close()];
  }

  #toolStart(tool: number, id: string, name: string): MessagesSseEvent[] {
    const events = this.#open('tool', { type: 'tool_use', id, name, input: {} });
    this.#toolBlocks.set(tool, this.#index);
    return events;
  }

  #toolDelta(tool: number, partialJson: string): MessagesSseEvent[] {
    const index = this.#toolBlocks.get(tool);
    if (index === undefined || partialJson === '') return [];
    return [
      sse('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: partialJson } }),
    ];
  }

  #done(): MessagesSseEvent[] {
    const usage = usageToAnthropic(this.#usage ?? NO_USAGE, this.#tier);
    return [
      ...this.#opening(),
      ...this.#close(),
      sse('message_delta', { delta: { stop_reason: stopReason(this.#reason), stop_sequence: null }, usage }),
      sse('message_stop'),
    ];
  }
}
