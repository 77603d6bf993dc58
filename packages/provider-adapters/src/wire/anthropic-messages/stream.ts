/**
 * The Messages event stream, incrementally: SSE bytes in, StreamEvents out. For a client that
 * speaks Messages itself, every upstream event also goes out verbatim as a `native` event, and
 * only the events the gateway meters with are added beside them.
 */
import type { ResponseContext, StreamTranslator } from '../../adapter.ts';
import { isJsonObject, type JsonObject, parseJson, servedModel } from '../../json.ts';
import type { StreamEvent, UpstreamFailure } from '../../model/response.ts';
import { SseDecoder } from '../../sse.ts';
import { argumentsText, blockPart, citationFrom, finishReason, servedTier, usageFrom } from './decode.ts';
import { retryForStreamError } from './retry.ts';
import { ANTHROPIC_API } from './types.ts';

/** What a content block index stands for while its deltas arrive. */
interface OpenBlock {
  readonly kind: 'text' | 'thinking' | 'tool' | 'server' | 'other';
  /** Tool calls are numbered from 0 in the response, unlike content blocks. */
  readonly toolIndex: number;
  readonly block: JsonObject;
  json: string;
}

/** Events a passthrough client still needs beside the native ones: metering and the ends. */
const METERED = new Set<StreamEvent['type']>(['start', 'usage', 'served_tier', 'finish', 'error', 'done']);

/**
 * An `error` event after HTTP 200: Anthropic's overload is a 503 like its HTTP 529. Anything
 * else is the provider's fault, so its text (which may describe its internals) is not shown;
 * only the error type is, when it looks like one. Where a retry may go follows the type, as
 * for an error response.
 */
export function streamFailure(error: unknown): UpstreamFailure {
  const type = isJsonObject(error) ? error.type : undefined;
  const retry = retryForStreamError(type);
  const scope = retry === undefined ? {} : { retry };
  if (type === 'overloaded_error')
    return { kind: 'server', status: 503, message: 'the provider is overloaded; try again later.', ...scope };
  const label = typeof type === 'string' && /^[a-z_]{1,40}$/.test(type) ? ` (${type})` : '';
  return { kind: 'server', status: 502, message: `the provider failed mid-stream${label}.`, ...scope };
}

/** A stream cut short or garbled: the provider may have been working on it, so only elsewhere. */
function failure(message: string): StreamEvent {
  return { type: 'error', failure: { kind: 'server', status: 502, message, retry: 'elsewhere' } };
}

export class MessagesStreamDecoder {
  readonly #blocks = new Map<number, OpenBlock>();
  #tools = 0;
  #usage: JsonObject = {};
  #finished = false;
  #started = false;

  get finished(): boolean {
    return this.#finished;
  }

  /** One upstream event's data, already parsed. */
  event(type: unknown, data: JsonObject): StreamEvent[] {
    if (this.#finished) return [];
    switch (type) {
      case 'message_start':
        return this.#start(isJsonObject(data.message) ? data.message : {});
      case 'content_block_start':
        return this.#blockStart(data);
      case 'content_block_delta':
        return this.#delta(data);
      case 'content_block_stop':
        return this.#blockStop(data);
      case 'message_delta':
        return this.#messageDelta(data);
      case 'message_stop':
        this.#finished = true;
        return [{ type: 'done' }];
      case 'error':
        this.#finished = true;
        return [{ type: 'error', failure: streamFailure(data.error) }];
      default:
        // `ping` and event types added after this was written.
        return [];
    }
  }

  /** The stream ended: without `message_stop` the answer is cut short, which is a failure. */
  end(): StreamEvent[] {
    if (this.#finished) return [];
    this.#finished = true;
    return [failure(this.#started ? 'the provider ended the stream early.' : 'the provider sent no stream.')];
  }

  malformed(): StreamEvent[] {
    if (this.#finished) return [];
    this.#finished = true;
    return [failure('the provider sent a malformed stream event.')];
  }

  #start(message: JsonObject): StreamEvent[] {
    this.#started = true;
    this.#usage = isJsonObject(message.usage) ? { ...message.usage } : {};
    const id = typeof message.id === 'string' ? message.id : '';
    const events: StreamEvent[] = [{ type: 'start', id, ...servedModel(message.model) }];
    const tier = servedTier(this.#usage);
    if (tier !== undefined) events.push({ type: 'served_tier', tier });
    events.push({ type: 'usage', usage: usageFrom(this.#usage) });
    return events;
  }

  #blockStart(data: JsonObject): StreamEvent[] {
    const block = isJsonObject(data.content_block) ? data.content_block : {};
    const index = typeof data.index === 'number' ? data.index : -1;
    const open = (kind: OpenBlock['kind'], toolIndex = -1) =>
      this.#blocks.set(index, { kind, toolIndex, block, json: '' });
    switch (block.type) {
      case 'text':
        open('text');
        return typeof block.text === 'string' && block.text !== ''
          ? [{ type: 'text', text: block.text }]
          : [];
      case 'thinking':
        open('thinking');
        return typeof block.thinking === 'string' && block.thinking !== ''
          ? [{ type: 'thinking', text: block.thinking }]
          : [];
      case 'tool_use': {
        const toolIndex = this.#tools++;
        open('tool', toolIndex);
        const id = typeof block.id === 'string' ? block.id : '';
        const name = typeof block.name === 'string' ? block.name : '';
        return [{ type: 'tool_call_start', index: toolIndex, id, name }];
      }
      case 'server_tool_use':
        open('server');
        return [];
      default: {
        open('other');
        // Whole blocks (web search results, redacted thinking) arrive complete in their start.
        const part = blockPart(block);
        if (part?.type === 'redacted_thinking') return [{ type: 'redacted_thinking', data: part.data }];
        return part === undefined ? [] : [{ type: 'server_tool', part }];
      }
    }
  }

  #delta(data: JsonObject): StreamEvent[] {
    const open = this.#blocks.get(typeof data.index === 'number' ? data.index : -1);
    const delta = isJsonObject(data.delta) ? data.delta : {};
    if (open === undefined) return [];
    const str = (value: unknown) => (typeof value === 'string' ? value : '');
    switch (delta.type) {
      case 'text_delta':
        return [{ type: 'text', text: str(delta.text) }];
      case 'thinking_delta':
        return [{ type: 'thinking', text: str(delta.thinking) }];
      case 'signature_delta':
        return [{ type: 'thinking', signature: str(delta.signature) }];
      case 'citations_delta': {
        const citation = citationFrom(delta.citation);
        return citation === undefined ? [] : [{ type: 'citation', citation }];
      }
      case 'input_json_delta':
        open.json += str(delta.partial_json);
        return open.kind === 'tool' && str(delta.partial_json) !== ''
          ? [{ type: 'tool_call_delta', index: open.toolIndex, arguments: str(delta.partial_json) }]
          : [];
      default:
        return [];
    }
  }

  #blockStop(data: JsonObject): StreamEvent[] {
    const index = typeof data.index === 'number' ? data.index : -1;
    const open = this.#blocks.get(index);
    this.#blocks.delete(index);
    if (open?.kind === 'tool' && open.json === '') {
      // A call without arguments sends no input_json_delta; its arguments are the start's input.
      return [{ type: 'tool_call_delta', index: open.toolIndex, arguments: argumentsText(open.block.input) }];
    }
    if (open?.kind !== 'server') return [];
    const input = open.json === '' ? open.block.input : parseJson(open.json);
    const part = blockPart({ ...open.block, input: isJsonObject(input) ? input : {} });
    return part === undefined ? [] : [{ type: 'server_tool', part }];
  }

  /** Usage here is cumulative; a null figure (input_tokens, often) keeps message_start's. */
  #messageDelta(data: JsonObject): StreamEvent[] {
    const events: StreamEvent[] = [];
    const delta = isJsonObject(data.delta) ? data.delta : {};
    if (delta.stop_reason !== undefined && delta.stop_reason !== null)
      events.push({ type: 'finish', reason: finishReason(delta.stop_reason) });
    if (isJsonObject(data.usage)) {
      for (const [key, value] of Object.entries(data.usage))
        if (value !== null && value !== undefined) this.#usage[key] = value;
      events.push({ type: 'usage', usage: usageFrom(this.#usage) });
    }
    return events;
  }
}

/** A StreamTranslator over the Messages SSE stream. */
export function createMessagesStreamTranslator(context: ResponseContext): StreamTranslator {
  const sse = new SseDecoder();
  const decoder = new MessagesStreamDecoder();
  const native = context.clientApi === ANTHROPIC_API;

  function translate(name: string | undefined, data: string): StreamEvent[] {
    if (decoder.finished) return [];
    const parsed = parseJson(data);
    if (!isJsonObject(parsed)) return decoder.malformed();
    // The `data` type is authoritative; the SSE event name is a copy of it.
    const type = parsed.type ?? name;
    const events = decoder.event(type, parsed);
    if (!native) return events;
    const event = typeof type === 'string' ? type : (name ?? 'message');
    return [
      { type: 'native', api: ANTHROPIC_API, event, data: parsed },
      ...events.filter((out) => METERED.has(out.type)),
    ];
  }

  return {
    push: (bytes) => sse.push(bytes).flatMap((event) => translate(event.event, event.data)),
    end: () => [...sse.end().flatMap((event) => translate(event.event, event.data)), ...decoder.end()],
  };
}
