/**
 * streamGenerateContent?alt=sse: every event is a partial GenerateContentResponse and there is
 * no `[DONE]`, so a stream is complete only when it ended cleanly after a finish reason.
 */
import type { StreamTranslator } from '../../adapter.ts';
import { isJsonObject, type JsonObject, parseJson } from '../../json.ts';
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

function failure(message: string): StreamEvent {
  return { type: 'error', failure: { kind: 'server', status: 502, message } };
}

class GeminiStream {
  readonly #decoder = new SseDecoder();
  #id: string | undefined;
  #closed = false;
  #finished = false;
  #calls = 0;
  #answer = '';
  /** Usage is cumulative: the last report wins. */
  #usage: unknown;
  #grounding: unknown;

  push(bytes: Uint8Array): StreamEvent[] {
    return this.#decoder.push(bytes).flatMap((event) => this.#event(event.data));
  }

  end(): StreamEvent[] {
    const events = this.#decoder.end().flatMap((event) => this.#event(event.data));
    if (this.#closed) return events;
    this.#closed = true;
    if (!this.#finished) return [...events, failure('the provider ended the stream before it finished.')];
    const tier = servedTierOf(this.#usage);
    const usage = usageOf(this.#usage, searched(this.#grounding));
    if (tier !== undefined) events.push({ type: 'served_tier', tier });
    if (usage !== undefined) events.push({ type: 'usage', usage });
    events.push({ type: 'done' });
    return events;
  }

  #event(data: string): StreamEvent[] {
    if (this.#closed) return [];
    const chunk = parseJson(data);
    if (!isJsonObject(chunk)) {
      this.#closed = true;
      return [failure('the provider sent a malformed stream event.')];
    }
    if (chunk.error !== undefined) {
      this.#closed = true;
      return [{ type: 'error', failure: mapGeminiStreamError(chunk.error) }];
    }
    const events: StreamEvent[] = [];
    if (this.#id === undefined) {
      this.#id = responseIdOf(chunk, data);
      events.push({ type: 'start', id: this.#id });
    }
    if (chunk.usageMetadata !== undefined) this.#usage = chunk.usageMetadata;
    // Anything after the finish (a trailing usage report) adds no content.
    if (!this.#finished) events.push(...this.#content(chunk));
    return events;
  }

  #content(chunk: JsonObject): StreamEvent[] {
    if (promptBlocked(chunk)) {
      this.#finished = true;
      return [{ type: 'finish', reason: 'content_filter' }];
    }
    const candidate = candidateOf(chunk);
    const events = partsOf(candidate).flatMap((view) => this.#part(view));
    if (candidate?.groundingMetadata !== undefined) this.#grounding = candidate.groundingMetadata;
    if (typeof candidate?.finishReason === 'string') {
      this.#finished = true;
      for (const citation of citationsOf(this.#grounding, this.#answer))
        events.push({ type: 'citation', citation });
      events.push({ type: 'finish', reason: finishReasonOf(candidate.finishReason, this.#calls > 0) });
    }
    return events;
  }

  /** Gemini sends each function call whole: its start and all its arguments at once. */
  #part(view: PartView): StreamEvent[] {
    const signature = view.signature === undefined ? {} : { signature: view.signature };
    if (view.kind === 'thought') return [{ type: 'thinking', text: view.text, ...signature }];
    if (view.kind === 'text') {
      this.#answer += view.text;
      const events: StreamEvent[] = view.signature === undefined ? [] : [{ type: 'thinking', ...signature }];
      if (view.text !== '') events.push({ type: 'text', text: view.text });
      return events;
    }
    const index = this.#calls++;
    const id = callId(view, this.#id ?? '', index);
    return [
      { type: 'tool_call_start', index, id, name: view.name, ...signature },
      { type: 'tool_call_delta', index, arguments: view.arguments },
    ];
  }
}

export function createGeminiStreamTranslator(): StreamTranslator {
  const stream = new GeminiStream();
  return { push: (bytes) => stream.push(bytes), end: () => stream.end() };
}
