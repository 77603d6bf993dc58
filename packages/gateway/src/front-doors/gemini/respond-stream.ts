/**
 * `:streamGenerateContent`: partial GenerateContentResponses, as server-sent events under
 * `?alt=sse` or as one JSON array without it. A Gemini upstream's chunks are forwarded as they
 * came (the model renamed to the gateway's); another API's events are encoded into chunks. The
 * session itself (commit, keep-alive, metering, endings) is the pipeline's; this is its dialect.
 */
import { gemini, isJsonObject, type JsonObject } from '@app/provider-adapters';
import type { AppError } from '@app/http-kit';
import { withCost } from '../../pipeline/answer-cost.ts';
import type { CostNow, NativeEvent, StreamDialect } from '../../pipeline/stream-dialect.ts';
import type { UpstreamCall } from '../../pipeline/upstream-call.ts';
import { googleErrorBody, googleErrorMessage } from './google-errors.ts';
import { bodyOf } from './inputs.ts';
import { type StreamFraming, streamFraming } from './path.ts';
import { asDeveloperApi, envelopeOf } from './respond-json.ts';

/** Characters of generated text in one chunk (text and thoughts; call arguments). */
function chunkChars(chunk: JsonObject): number {
  const candidates = Array.isArray(chunk.candidates) ? chunk.candidates : [];
  let chars = 0;
  for (const candidate of candidates) {
    const content = isJsonObject(candidate) && isJsonObject(candidate.content) ? candidate.content : {};
    for (const part of Array.isArray(content.parts) ? content.parts : []) {
      if (!isJsonObject(part)) continue;
      if (typeof part.text === 'string') chars += part.text.length;
      else if (part.functionCall !== undefined) chars += JSON.stringify(part.functionCall).length;
    }
  }
  return chars;
}

/** How chunks are written: `data:` events, or the elements of one JSON array. */
interface Framer {
  chunk(chunk: JsonObject): string;
  end(): string;
  readonly framing?: StreamDialect['framing'];
}

function framerOf(framing: StreamFraming): Framer {
  if (framing === 'sse') return { chunk: gemini.formatSseChunk, end: () => '' };
  const array = new gemini.JsonArrayFramer();
  return {
    chunk: (chunk) => array.chunk(chunk),
    end: () => array.end(),
    // JSON allows whitespace between elements: a newline keeps an idle connection open.
    framing: { headers: { 'content-type': 'application/json; charset=utf-8' }, keepAlive: '\n' },
  };
}

function finishes(chunk: JsonObject): boolean {
  const candidates = Array.isArray(chunk.candidates) ? chunk.candidates : [];
  return candidates.some((candidate) => isJsonObject(candidate) && candidate.finishReason !== undefined);
}

/**
 * A Gemini upstream's usage is final only once its stream ended, after its last chunk: the
 * chunks from the finish on (no content follows) are held until the end, and the last one with
 * usage gets the cost. Content is never delayed.
 */
class FinalChunks {
  #held: JsonObject[] = [];
  #finished = false;
  #cost: CostNow = () => undefined;

  /** True when `chunk` is held (it finishes the answer, or comes after the finish). */
  hold(chunk: JsonObject, cost: CostNow): boolean {
    this.#finished ||= finishes(chunk);
    if (!this.#finished) return false;
    this.#held.push(chunk);
    this.#cost = cost;
    return true;
  }

  /** The held chunks, with the cost on the last that has usage (none when the stream failed). */
  release(withCosts: boolean): JsonObject[] {
    const held = this.#held;
    this.#held = [];
    const last = held.findLastIndex((chunk) => isJsonObject(chunk.usageMetadata));
    const costed = withCosts ? this.#cost() : undefined;
    return held.map((chunk, index) => (index === last ? withCost(chunk, 'usageMetadata', costed) : chunk));
  }
}

function geminiDialect(call: UpstreamCall, body: JsonObject, framing: StreamFraming): StreamDialect {
  const { plan, reply } = call.init;
  const encoder = new gemini.GeminiChunkEncoder(envelopeOf(call, body));
  const framer = framerOf(framing);
  const final = new FinalChunks();
  const native = (event: NativeEvent, cost: CostNow) => {
    // The upstream's own error text may describe its internals: the gateway's event replaces it.
    if (event.data.error !== undefined) return { text: '', chars: 0 };
    const chunk = asDeveloperApi(event.data, plan.model);
    const chars = chunkChars(event.data);
    return { text: final.hold(chunk, cost) ? '' : framer.chunk(chunk), chars };
  };
  return {
    native,
    // Only the last chunk has usage: it gets the cost.
    encode: (event, cost) =>
      encoder
        .encode(event)
        .map((chunk) =>
          framer.chunk(event.type === 'done' ? withCost(chunk, 'usageMetadata', cost()) : chunk),
        )
        .join(''),
    get terminator() {
      return final.release(true).map(framer.chunk).join('') + framer.end();
    },
    completeOnUsage: false,
    errorEvent: (error: AppError) =>
      final.release(false).map(framer.chunk).join('') +
      framer.chunk(googleErrorBody(error, googleErrorMessage(error, reply.request)) as JsonObject) +
      framer.end(),
    ...(framer.framing ? { framing: framer.framing } : {}),
  };
}

/** The descriptor's `streamDialect`: framed as the request's `alt` asks. */
export function streamDialect(call: UpstreamCall, body: unknown): StreamDialect {
  const { alt } = call.init.reply.request.query as { readonly alt?: string };
  return geminiDialect(call, bodyOf(body), streamFraming(alt));
}
