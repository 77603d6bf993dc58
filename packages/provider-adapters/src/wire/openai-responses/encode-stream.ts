/**
 * Internal stream events -> the Responses event stream as OpenAI sends it, every event with its
 * `type` and `sequence_number`: `response.created`, `response.in_progress`, then per output item
 * `response.output_item.added`, its parts and deltas (`response.content_part.added`,
 * `response.output_text.delta`/`.done`, `response.reasoning_summary_part.added`,
 * `response.reasoning_summary_text.delta`/`.done`, `response.function_call_arguments.delta`/
 * `.done`) and `response.output_item.done`, and last `response.completed` (or
 * `response.incomplete`) carrying the whole response with usage. Codex CLI takes its items from
 * `response.output_item.done` and needs `response.completed`; the SDK accumulates the deltas.
 */
import { isJsonObject, type JsonObject } from '../../json.ts';
import type { Citation } from '../../model/content.ts';
import type { FinishReason, ServedTier, StreamEvent } from '../../model/response.ts';
import { packToolCallId } from '../../model/tool-call-id.ts';
import type { Usage } from '../../model/usage.ts';
import {
  annotation,
  finishStatus,
  functionCallItem,
  itemId,
  messageItem,
  reasoningItem,
  responseObject,
} from './encode-response.ts';
import type { ResponseEnvelope } from './types.ts';

export interface ResponsesSseEvent {
  readonly event: string;
  readonly data: JsonObject;
}

/** One event as SSE text: `event:` line, `data:` line (the JSON carries the type too). */
export function formatResponsesEvent(event: ResponsesSseEvent): string {
  return `event: ${event.event}\ndata: ${JSON.stringify(event.data)}\n\n`;
}

interface OpenItem {
  readonly kind: 'message' | 'reasoning' | 'function';
  readonly id: string;
  readonly outputIndex: number;
  text: string;
  readonly cites: Citation[];
  /** Reasoning: the summary part was announced. */
  summaryOpen: boolean;
  signature?: string;
  callId?: string;
  name?: string;
}

/** An error as the front door shows it, for the failure events. */
export interface ResponsesFailure {
  readonly code: string;
  readonly message: string;
  readonly type: string;
  readonly param?: string | undefined;
}

/**
 * The codes OpenAI's schema allows in `response.error.code` that a gateway failure can mean; any
 * other code (the gateway's own, e.g. `upstream_error`) is reported there as `server_error`. The
 * `error` event's code is free text and keeps the gateway's.
 */
const RESPONSE_ERROR_CODES = new Set(['server_error', 'rate_limit_exceeded']);

export class ResponsesEventEncoder {
  readonly #envelope: ResponseEnvelope;
  #sequence = 0;
  /** The last response object of a forwarded stream: a failure continues that response. */
  #forwarded: JsonObject | undefined;
  #started = false;
  #open: OpenItem | undefined;
  readonly #output: JsonObject[] = [];
  /** Tool call number (from 0 in the response) -> its item. */
  readonly #tools = new Map<number, OpenItem>();
  #reason: FinishReason = 'stop';
  #usage: Usage | undefined;
  #tier: ServedTier | undefined;

  constructor(envelope: ResponseEnvelope) {
    this.#envelope = envelope;
  }

  /** The Responses events for one internal event; `error` and `native` are the caller's to send. */
  encode(event: StreamEvent): ResponsesSseEvent[] {
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
      case 'start':
        return this.#opening();
      case 'text':
        return this.#text(event.text);
      case 'citation':
        return this.#citation(event.citation);
      case 'thinking':
        return this.#thinking(event.text, event.signature);
      case 'redacted_thinking':
        return [...this.#openItem('reasoning'), ...this.#close(event.data)];
      case 'tool_call_start':
        return this.#toolStart(event.index, packToolCallId(event.id, event.signature), event.name);
      case 'tool_call_delta':
        return this.#toolDelta(event.index, event.arguments);
      case 'done':
        return this.#done();
      default:
        return [];
    }
  }

  /**
   * An upstream event forwarded as it came: the failure events, if any, continue its sequence
   * numbers and its response (id, output so far) rather than starting a response of their own.
   */
  forwarded(data: JsonObject): void {
    if (typeof data.sequence_number === 'number') this.#sequence = data.sequence_number + 1;
    if (isJsonObject(data.response)) this.#forwarded = data.response;
  }

  /** After a failure: an `error` event (the SDK throws it), then `response.failed` (Codex reads it). */
  fail(failure: ResponsesFailure): ResponsesSseEvent[] {
    const { code, message, type, param } = failure;
    const events = [
      this.#event('error', {
        code,
        message,
        param: param ?? null,
        error: { type, code, message, param: param ?? null },
      }),
    ];
    const base =
      this.#forwarded ??
      responseObject(this.#envelope, {
        status: 'failed',
        output: this.#outputSoFar(),
        usage: this.#usage,
        tier: this.#tier,
      });
    const listed = RESPONSE_ERROR_CODES.has(code) ? code : 'server_error';
    const response = { ...base, status: 'failed', error: { code: listed, message } };
    events.push(this.#event('response.failed', { response }));
    return events;
  }

  /**
   * The output at a failure: items still open appear as they stand (in progress, their text so
   * far) instead of their placeholders, which no output item schema admits.
   */
  #outputSoFar(): JsonObject[] {
    const open = [this.#open, ...this.#tools.values()].filter((item) => item !== undefined);
    return this.#output.map((item, index) => {
      const standing = open.find((each) => each.outputIndex === index);
      return standing && Object.keys(item).length === 0 ? this.#item(standing, false) : item;
    });
  }

  #event(type: string, fields: JsonObject): ResponsesSseEvent {
    return { event: type, data: { type, sequence_number: this.#sequence++, ...fields } };
  }

  #opening(): ResponsesSseEvent[] {
    if (this.#started) return [];
    this.#started = true;
    const response = responseObject(this.#envelope, { status: 'in_progress', output: [], usage: undefined });
    return [this.#event('response.created', { response }), this.#event('response.in_progress', { response })];
  }

  #openItem(kind: OpenItem['kind'], fields: Partial<OpenItem> = {}): ResponsesSseEvent[] {
    const events = [...this.#opening(), ...this.#close()];
    const outputIndex = this.#output.length;
    const prefix = kind === 'message' ? 'msg' : kind === 'reasoning' ? 'rs' : 'fc';
    const open: OpenItem = {
      kind,
      id: itemId(this.#envelope, prefix, outputIndex),
      outputIndex,
      text: '',
      cites: [],
      summaryOpen: false,
      ...fields,
    };
    this.#open = open;
    // A placeholder keeps the output indexes of later items right until this one is done.
    this.#output.push({});
    events.push(
      this.#event('response.output_item.added', { output_index: outputIndex, item: this.#item(open, false) }),
    );
    if (kind === 'message')
      events.push(
        this.#event('response.content_part.added', {
          ...this.#at(open),
          content_index: 0,
          part: { type: 'output_text', text: '', annotations: [], logprobs: [] },
        }),
      );
    return events;
  }

  #at(open: OpenItem): JsonObject {
    return { item_id: open.id, output_index: open.outputIndex };
  }

  #item(open: OpenItem, done: boolean): JsonObject {
    if (open.kind === 'message') return messageItem(open.id, open.text, open.cites, done);
    if (open.kind === 'reasoning')
      return reasoningItem(open.id, done ? open.text : '', done ? open.signature : undefined);
    const call = { callId: open.callId ?? '', name: open.name ?? '', arguments: done ? open.text : '' };
    return functionCallItem(open.id, call, done);
  }

  #text(text: string): ResponsesSseEvent[] {
    const events = this.#open?.kind === 'message' ? [] : this.#openItem('message');
    const open = this.#open as OpenItem;
    open.text += text;
    events.push(
      this.#event('response.output_text.delta', {
        ...this.#at(open),
        content_index: 0,
        delta: text,
        logprobs: [],
      }),
    );
    return events;
  }

  #citation(cite: Citation): ResponsesSseEvent[] {
    const events = this.#open?.kind === 'message' ? [] : this.#openItem('message');
    const open = this.#open as OpenItem;
    open.cites.push(cite);
    events.push(
      this.#event('response.output_text.annotation.added', {
        ...this.#at(open),
        content_index: 0,
        annotation_index: open.cites.length - 1,
        annotation: annotation(cite),
      }),
    );
    return events;
  }

  #thinking(text: string | undefined, signature: string | undefined): ResponsesSseEvent[] {
    const events = this.#open?.kind === 'reasoning' ? [] : this.#openItem('reasoning');
    const open = this.#open as OpenItem;
    if (text !== undefined && text !== '') {
      if (!open.summaryOpen) {
        open.summaryOpen = true;
        events.push(
          this.#event('response.reasoning_summary_part.added', {
            ...this.#at(open),
            summary_index: 0,
            part: { type: 'summary_text', text: '' },
          }),
        );
      }
      open.text += text;
      events.push(
        this.#event('response.reasoning_summary_text.delta', {
          ...this.#at(open),
          summary_index: 0,
          delta: text,
        }),
      );
    }
    if (signature !== undefined && signature !== '') open.signature = (open.signature ?? '') + signature;
    return events;
  }

  #toolStart(tool: number, callId: string, name: string): ResponsesSseEvent[] {
    const events = this.#openItem('function', { callId, name });
    this.#tools.set(tool, this.#open as OpenItem);
    return events;
  }

  #toolDelta(tool: number, delta: string): ResponsesSseEvent[] {
    const open = this.#tools.get(tool);
    if (open === undefined || delta === '') return [];
    open.text += delta;
    return [this.#event('response.function_call_arguments.delta', { ...this.#at(open), delta })];
  }

  /** Ends the open item; `redacted`: the encrypted content of a redacted reasoning item. */
  #close(redacted?: string): ResponsesSseEvent[] {
    const open = this.#open;
    if (open === undefined) return [];
    this.#open = undefined;
    if (redacted !== undefined) open.signature = redacted;
    const at = this.#at(open);
    const events: ResponsesSseEvent[] = [];
    if (open.kind === 'message') {
      const part = {
        type: 'output_text',
        text: open.text,
        annotations: open.cites.map(annotation),
        logprobs: [],
      };
      events.push(
        this.#event('response.output_text.done', { ...at, content_index: 0, text: open.text, logprobs: [] }),
        this.#event('response.content_part.done', { ...at, content_index: 0, part }),
      );
    } else if (open.kind === 'reasoning' && open.summaryOpen) {
      events.push(
        this.#event('response.reasoning_summary_text.done', { ...at, summary_index: 0, text: open.text }),
        this.#event('response.reasoning_summary_part.done', {
          ...at,
          summary_index: 0,
          part: { type: 'summary_text', text: open.text },
        }),
      );
    } else if (open.kind === 'function') {
      events.push(
        this.#event('response.function_call_arguments.done', {
          ...at,
          name: open.name ?? '',
          arguments: open.text,
        }),
      );
    }
    const item = this.#item(open, true);
    this.#output[open.outputIndex] = item;
    events.push(this.#event('response.output_item.done', { output_index: open.outputIndex, item }));
    return events;
  }

  #done(): ResponsesSseEvent[] {
    const events = [...this.#opening(), ...this.#close()];
    const { status, incomplete_details } = finishStatus(this.#reason);
    const response = responseObject(this.#envelope, {
      status,
      incomplete_details,
      output: this.#output,
      usage: this.#usage,
      tier: this.#tier,
    });
    events.push(
      this.#event(status === 'completed' ? 'response.completed' : 'response.incomplete', { response }),
    );
    return events;
  }
}
