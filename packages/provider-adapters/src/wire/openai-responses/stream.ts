/**
 * The Responses event stream, incrementally: SSE bytes in, StreamEvents out. For a client that
 * speaks Responses itself every upstream event also goes out verbatim as a `native` event, and
 * only the events the gateway meters with are added beside them.
 */
import type { ResponseContext, StreamTranslator } from '../../adapter.ts';
import { isJsonObject, type JsonObject, parseJson, servedModel } from '../../json.ts';
import type { StreamEvent, UpstreamFailure } from '../../model/response.ts';
import { retryForOpenAIErrorCode, withRetry } from '../../retry-scope.ts';
import { unpackToolCallId } from '../../model/tool-call-id.ts';
import { SseDecoder } from '../../sse.ts';
import { citationsOf, itemParts, responseFinish, servedTierOf } from './decode-response.ts';
import { RESPONSES_API } from './types.ts';
import { usageFromResponses } from './usage.ts';

/** Events a passthrough client still needs beside the native ones: metering and the ends. */
const METERED = new Set<StreamEvent['type']>(['start', 'usage', 'served_tier', 'finish', 'error', 'done']);

/** OpenAI's codes for an overloaded service: a 503, which the gateway may retry elsewhere. */
const OVERLOADED = new Set(['server_is_overloaded', 'slow_down']);

/**
 * `response.failed` or an `error` event after HTTP 200: the provider's fault, in the gateway's
 * words (its text may describe its internals or echo the gateway's credentials). Where a retry
 * may go follows the error's code.
 */
export function responsesStreamFailure(error: unknown): UpstreamFailure {
  const code = isJsonObject(error) ? error.code : undefined;
  const retry = retryForOpenAIErrorCode(code);
  if (typeof code === 'string' && OVERLOADED.has(code))
    return withRetry(
      { kind: 'server', status: 503, message: 'the provider is overloaded; try again later.' },
      retry,
    );
  return withRetry({ kind: 'server', status: 502, message: 'the provider failed mid-stream.' }, retry);
}

/** A stream cut short or garbled: the provider may have been working on it, so only elsewhere. */
function failure(message: string): StreamEvent {
  return { type: 'error', failure: { kind: 'server', status: 502, message, retry: 'elsewhere' } };
}

export class ResponsesStreamDecoder {
  /** Output index of a function call item -> its tool call number (from 0 in the response). */
  readonly #tools = new Map<number, number>();
  /** Tool calls whose arguments arrived as deltas (the item's done event repeats them). */
  readonly #streamedArgs = new Set<number>();
  #finished = false;
  #started = false;

  get finished(): boolean {
    return this.#finished;
  }

  event(type: unknown, data: JsonObject): StreamEvent[] {
    if (this.#finished) return [];
    const index = typeof data.output_index === 'number' ? data.output_index : -1;
    const text = (value: unknown) => (typeof value === 'string' ? value : '');
    switch (type) {
      case 'response.created':
        return this.#start(isJsonObject(data.response) ? data.response : {});
      case 'response.output_item.added':
        return isJsonObject(data.item) ? this.#itemAdded(index, data.item) : [];
      case 'response.output_text.delta':
        return text(data.delta) === '' ? [] : [{ type: 'text', text: text(data.delta) }];
      case 'response.output_text.annotation.added':
        return citationsOf([data.annotation]).map((citation) => ({ type: 'citation', citation }));
      case 'response.reasoning_summary_text.delta':
        return text(data.delta) === '' ? [] : [{ type: 'thinking', text: text(data.delta) }];
      case 'response.function_call_arguments.delta':
        return this.#argumentsDelta(index, text(data.delta));
      case 'response.output_item.done':
        return isJsonObject(data.item) ? this.#itemDone(index, data.item) : [];
      case 'response.completed':
      case 'response.incomplete':
        return this.#end(isJsonObject(data.response) ? data.response : {});
      case 'response.failed': {
        this.#finished = true;
        const response = isJsonObject(data.response) ? data.response : {};
        return [{ type: 'error', failure: responsesStreamFailure(response.error) }];
      }
      case 'error':
        this.#finished = true;
        return [
          { type: 'error', failure: responsesStreamFailure(isJsonObject(data.error) ? data.error : data) },
        ];
      default:
        return [];
    }
  }

  /** The stream ended: without `response.completed` the answer is cut short, which is a failure. */
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

  #start(response: JsonObject): StreamEvent[] {
    if (this.#started) return [];
    this.#started = true;
    return [
      {
        type: 'start',
        id: typeof response.id === 'string' ? response.id : '',
        ...servedModel(response.model),
      },
    ];
  }

  #toolStart(index: number, item: JsonObject): StreamEvent[] {
    const tool = this.#tools.size;
    this.#tools.set(index, tool);
    const { id, signature } = unpackToolCallId(String(item.call_id ?? ''));
    const name = String(item.name ?? '');
    return [
      { type: 'tool_call_start', index: tool, id, name, ...(signature === undefined ? {} : { signature }) },
    ];
  }

  #itemAdded(index: number, item: JsonObject): StreamEvent[] {
    return item.type === 'function_call' ? this.#toolStart(index, item) : [];
  }

  #argumentsDelta(index: number, delta: string): StreamEvent[] {
    const tool = this.#tools.get(index);
    if (tool === undefined || delta === '') return [];
    this.#streamedArgs.add(tool);
    return [{ type: 'tool_call_delta', index: tool, arguments: delta }];
  }

  /** What the deltas did not carry: a reasoning item's signature, arguments sent only whole. */
  #itemDone(index: number, item: JsonObject): StreamEvent[] {
    if (item.type === 'reasoning' && typeof item.encrypted_content === 'string')
      return [{ type: 'thinking', signature: item.encrypted_content }];
    if (item.type !== 'function_call') return [];
    const events = this.#tools.has(index) ? [] : this.#toolStart(index, item);
    const tool = this.#tools.get(index) ?? 0;
    const args = String(item.arguments ?? '');
    if (!this.#streamedArgs.has(tool) && args !== '')
      events.push({ type: 'tool_call_delta', index: tool, arguments: args });
    return events;
  }

  #end(response: JsonObject): StreamEvent[] {
    this.#finished = true;
    const events: StreamEvent[] = [...this.#start(response)];
    const tier = servedTierOf(response.service_tier);
    if (tier) events.push({ type: 'served_tier', tier });
    const usage = usageFromResponses(response.usage);
    if (usage) events.push({ type: 'usage', usage });
    // Calls seen in the stream count even when the final object repeats no output.
    const output = (Array.isArray(response.output) ? response.output : []).filter(isJsonObject);
    const parts = output.flatMap(itemParts);
    const called = this.#tools.size > 0 && response.status !== 'incomplete';
    const reason = called ? 'tool_calls' : responseFinish(response, parts);
    events.push({ type: 'finish', reason }, { type: 'done' });
    return events;
  }
}

/** Responses SSE from an upstream; `native` for a Responses client (its events pass through). */
export function createResponsesStreamTranslator(context: ResponseContext): StreamTranslator {
  const sse = new SseDecoder();
  const decoder = new ResponsesStreamDecoder();
  const native = context.clientApi === RESPONSES_API;

  function translate(name: string | undefined, data: string): StreamEvent[] {
    if (decoder.finished) return [];
    // OpenAI ends Responses streams without [DONE]; some compatible servers add one.
    if (data === '[DONE]') return [];
    const parsed = parseJson(data);
    if (!isJsonObject(parsed)) return decoder.malformed();
    const type = parsed.type ?? name;
    const events = decoder.event(type, parsed);
    if (!native) return events;
    const event = typeof type === 'string' ? type : (name ?? 'message');
    return [
      { type: 'native', api: RESPONSES_API, event, data: parsed },
      ...events.filter((out) => METERED.has(out.type)),
    ];
  }

  return {
    push: (bytes) => sse.push(bytes).flatMap((event) => translate(event.event, event.data)),
    end: () => [...sse.end().flatMap((event) => translate(event.event, event.data)), ...decoder.end()],
  };
}
