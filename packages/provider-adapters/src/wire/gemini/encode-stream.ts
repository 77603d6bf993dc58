/**
 * Internal stream events -> streamGenerateContent chunks, each a partial
 * GenerateContentResponse as Google streams them: text and thoughts as they come, each
 * function call as one whole part (Google never splits a call), and the finish reason, usage
 * and grounding on the last chunk. Framing is the caller's: `formatSseChunk` for `?alt=sse`,
 * `JsonArrayFramer` for the JSON array Google streams without it.
 */
import type { JsonObject } from '../../json.ts';
import type { Citation } from '../../model/content.ts';
import type { FinishReason, StreamEvent } from '../../model/response.ts';
import { NO_USAGE, type Usage } from '../../model/usage.ts';
import {
  functionCallPart,
  type GeminiEnvelope,
  geminiFinishReason,
  groundingOf,
  usageToGemini,
} from './encode-response.ts';

/** One chunk as an SSE event, as Google frames them under `?alt=sse`. */
export function formatSseChunk(chunk: JsonObject): string {
  return `data: ${JSON.stringify(chunk)}\r\n\r\n`;
}

/** The JSON array Google streams without `?alt=sse`: `[{...}\r\n,{...}\r\n]`, chunk by chunk. */
export class JsonArrayFramer {
  #opened = false;

  chunk(chunk: JsonObject): string {
    const lead = this.#opened ? '\r\n,' : '[';
    this.#opened = true;
    return `${lead}${JSON.stringify(chunk)}`;
  }

  /** The closing bracket (a whole empty array when no chunk was sent). */
  end(): string {
    return this.#opened ? '\r\n]' : '[]';
  }
}

interface OpenCall {
  readonly id: string;
  readonly name: string;
  readonly signature: string | undefined;
  args: string;
}

export class GeminiChunkEncoder {
  readonly #envelope: GeminiEnvelope;
  #call: OpenCall | undefined;
  /** A signature whose thought is not shown, for the next part. */
  #signature: string | undefined;
  #reason: FinishReason = 'stop';
  #usage: Usage | undefined;
  readonly #citations: Citation[] = [];

  constructor(envelope: GeminiEnvelope) {
    this.#envelope = envelope;
  }

  /** The chunks for one internal event; `error` and `native` are the caller's to send. */
  encode(event: StreamEvent): JsonObject[] {
    switch (event.type) {
      case 'text':
        return event.text === '' ? [] : this.#parts([{ text: event.text }]);
      case 'thinking':
        return this.#thinking(event.text, event.signature);
      case 'tool_call_start': {
        const flushed = this.#parts([]);
        this.#call = { id: event.id, name: event.name, signature: event.signature, args: '' };
        return flushed;
      }
      case 'tool_call_delta':
        if (this.#call !== undefined) this.#call.args += event.arguments;
        return [];
      case 'citation':
        this.#citations.push(event.citation);
        return [];
      case 'finish':
        this.#reason = event.reason;
        return [];
      case 'usage':
        this.#usage = event.usage;
        return [];
      case 'done':
        return [this.#last()];
      default:
        return [];
    }
  }

  #chunk(parts: JsonObject[], last?: JsonObject): JsonObject {
    return {
      candidates: [{ content: { role: 'model', parts }, ...last, index: 0 }],
      ...(last === undefined ? {} : { usageMetadata: usageToGemini(this.#usage ?? NO_USAGE) }),
      modelVersion: this.#envelope.modelVersion,
      responseId: this.#envelope.responseId,
    };
  }

  /** Parts in a chunk, after any call still open; a held signature goes on the first. */
  #parts(parts: JsonObject[]): JsonObject[] {
    const all = this.#withCall(parts);
    return all.length === 0 ? [] : [this.#chunk(all)];
  }

  #withCall(parts: JsonObject[]): JsonObject[] {
    const call = this.#call;
    this.#call = undefined;
    const all =
      call === undefined
        ? parts
        : [functionCallPart(call.id, call.name, call.args, call.signature), ...parts];
    const [first, ...rest] = all;
    if (first === undefined || this.#signature === undefined || first.thoughtSignature) return all;
    const signed = { ...first, thoughtSignature: this.#signature };
    this.#signature = undefined;
    return [signed, ...rest];
  }

  #thinking(text: string | undefined, signature: string | undefined): JsonObject[] {
    if (!this.#envelope.includeThoughts) {
      if (signature) this.#signature = signature;
      return [];
    }
    if ((text === undefined || text === '') && !signature) return [];
    // A signature that comes after its thought's text travels on an empty thought part, which
    // a client echoing the history back joins to the text before it.
    return this.#parts([
      { text: text ?? '', thought: true, ...(signature ? { thoughtSignature: signature } : {}) },
    ]);
  }

  /** The last chunk: whatever is still held, the finish reason, usage and grounding. */
  #last(): JsonObject {
    const parts = this.#withCall([]);
    if (this.#signature !== undefined) parts.push({ text: '', thoughtSignature: this.#signature });
    this.#signature = undefined;
    const grounding = groundingOf(this.#citations);
    return this.#chunk(parts, {
      finishReason: geminiFinishReason(this.#reason),
      ...(grounding === undefined ? {} : { groundingMetadata: grounding }),
    });
  }
}
