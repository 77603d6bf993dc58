/**
 * `:streamGenerateContent`: partial GenerateContentResponses, as server-sent events under
 * `?alt=sse` or as one JSON array without it. A Gemini upstream's chunks are forwarded as they
 * came (the model renamed to the gateway's); another API's events are encoded into chunks. The
 * session itself (commit, keep-alive, metering, endings) is the pipeline's; this is its dialect.
 */
import { gemini, isJsonObject, type JsonObject } from '@app/provider-adapters';
import type { AppError } from '@app/http-kit';
import { withCost } from '../../pipeline/answer-cost.ts';
import type { NativeEvent, StreamDialect } from '../../pipeline/stream-session.ts';
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

function geminiDialect(call: UpstreamCall, body: JsonObject, framing: StreamFraming): StreamDialect {
  const { plan, reply } = call.init;
  const encoder = new gemini.GeminiChunkEncoder(envelopeOf(call, body));
  const framer = framerOf(framing);
  const native = (event: NativeEvent) => {
    // The upstream's own error text may describe its internals: the gateway's event replaces it.
    if (event.data.error !== undefined) return { text: '', chars: 0 };
    return { text: framer.chunk(asDeveloperApi(event.data, plan.model)), chars: chunkChars(event.data) };
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
      return framer.end();
    },
    completeOnUsage: false,
    errorEvent: (error: AppError) =>
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
