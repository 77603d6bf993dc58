/**
 * streamGenerateContent?alt=sse: every event is a partial GenerateContentResponse and there is
 * no `[DONE]`, so a stream is complete only when it ended cleanly after a finish reason. For a
 * client that speaks Gemini itself, every chunk also goes out verbatim as a `native` event, and
 * only the events the gateway meters with are added beside them.
 */
import type { ResponseContext, StreamTranslator } from '../../adapter.ts';
import { isJsonObject, type JsonObject, parseJson, servedModel } from '../../json.ts';
import type { StreamEvent } from '../../model/response.ts';
import { SseDecoder } from '../../sse.ts';
import { mapGeminiStreamError } from './errors.ts';
import {
  callId,
  candidateOf,
  citationsOf,
  finishReasonOf,
  partsOf,
  promptBlocked,
  responseIdOf,
  searched,
  servedTierOf,
  usageOf,
  type PartView,
} from './read.ts';
import { GEMINI_API } from './types.ts';

/** Events a passthrough client still needs beside the native ones: metering and the ends. */
const METERED = new Set<StreamEvent['type']>(['start', 'usage', 'served_tier', 'finish', 'error', 'done']);

/** A stream cut short or garbled: the provider may have been working on it, so only elsewhere. */
function failure(message: string): StreamEvent {
  return { type: 'error', failure: { kind: 'server', status: 502, message, retry: 'elsewhere' } };
}

class GeminiStream {
  readonly #decoder = new SseDecoder();
  readonly #native: boolean;
  #id: string | undefined;
  #closed = false;
  #finished = false;
  #calls = 0;
  #answer = '';
  /** Usage is cumulative: the last report wins. */
  #usage: unknown;
  #grounding: unknown;

  constructor(native: boolean) {
    this.#native = native;
  }

  push(bytes: Uint8Array): StreamEvent[] {
    const out: StreamEvent[] = [];
    for (const event of this.#decoder.push(bytes)) this.#event(event.data, out);
    return out;
  }

  end(): StreamEvent[] {
    const out: StreamEvent[] = [];
    for (const event of this.#decoder.end()) this.#event(event.data, out);
    if (this.#closed) return out;
    this.#closed = true;
    if (!this.#finished) {
      out.push(failure('the provider ended the stream before it finished.'));
      return out;
    }
    const tier = servedTierOf(this.#usage);
    const usage = usageOf(this.#usage, searched(this.#grounding));
    if (tier !== undefined) out.push({ type: 'served_tier', tier });
    if (usage !== undefined) out.push({ type: 'usage', usage });
    out.push({ type: 'done' });
    return out;
  }

  /** One SSE event's translation, appended to `out` (this runs once per chunk). */
  #event(data: string, out: StreamEvent[]): void {
    if (this.#closed) return;
    const chunk = parseJson(data);
    if (!isJsonObject(chunk)) {
      this.#closed = true;
      out.push(failure('the provider sent a malformed stream event.'));
      return;
    }
    if (chunk.error !== undefined) {
      this.#closed = true;
      out.push({ type: 'error', failure: mapGeminiStreamError(chunk.error) });
      return;
    }
    if (this.#id === undefined) {
      this.#id = responseIdOf(chunk, data);
      out.push({ type: 'start', id: this.#id, ...servedModel(chunk.modelVersion) });
    }
    if (chunk.usageMetadata !== undefined) this.#usage = chunk.usageMetadata;
    if (this.#native) out.push({ type: 'native', api: GEMINI_API, data: chunk });
    // Anything after the finish (a trailing usage report) adds no content.
    if (this.#finished) return;
    if (!this.#native) {
      this.#content(chunk, out);
      return;
    }
    const decoded: StreamEvent[] = [];
    this.#content(chunk, decoded);
    out.push(...decoded.filter((event) => METERED.has(event.type)));
  }

  #content(chunk: JsonObject, out: StreamEvent[]): void {
    if (promptBlocked(chunk)) {
      this.#finished = true;
      out.push({ type: 'finish', reason: 'content_filter' });
      return;
    }
    const candidate = candidateOf(chunk);
    for (const view of partsOf(candidate)) this.#part(view, out);
    if (candidate?.groundingMetadata !== undefined) this.#grounding = candidate.groundingMetadata;
    if (typeof candidate?.finishReason === 'string') {
      this.#finished = true;
      for (const citation of citationsOf(this.#grounding, this.#answer))
        out.push({ type: 'citation', citation });
      out.push({ type: 'finish', reason: finishReasonOf(candidate.finishReason, this.#calls > 0) });
    }
  }

  /** Gemini sends each function call whole: its start and all its arguments at once. */
  #part(view: PartView, out: StreamEvent[]): void {
    const signature = view.signature === undefined ? {} : { signature: view.signature };
    if (view.kind === 'thought') {
      out.push({ type: 'thinking', text: view.text, ...signature });
    } else if (view.kind === 'text') {
      this.#answer += view.text;
      if (view.signature !== undefined) out.push({ type: 'thinking', ...signature });
      if (view.text !== '') out.push({ type: 'text', text: view.text });
    } else {
      const index = this.#calls++;
      const id = callId(view, this.#id ?? '', index);
      out.push(
        { type: 'tool_call_start', index, id, name: view.name, ...signature },
        { type: 'tool_call_delta', index, arguments: view.arguments },
      );
    }
  }
}

export function createGeminiStreamTranslator(context?: ResponseContext): StreamTranslator {
  const stream = new GeminiStream(context?.clientApi === GEMINI_API);
  return { push: (bytes) => stream.push(bytes), end: () => stream.end() };
}
