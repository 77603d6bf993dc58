import type { ResponseContext, StreamTranslator } from '../adapter.ts';
import { isJsonObject, type JsonObject, parseJson, servedModel } from '../json.ts';
import type { FinishReason, StreamEvent } from '../model/response.ts';
import { SseDecoder } from '../sse.ts';
import { ChatChunkDecoder, finishReasonOf, servedTierOf } from '../wire/openai-chat/decode-response.ts';
import { usageFromOpenAI } from '../wire/openai-chat/usage.ts';
import { midStreamFailure } from './errors.ts';

const MALFORMED = {
  type: 'error',
  failure: {
    kind: 'server',
    status: 502,
    message: 'the provider sent a malformed stream event.',
    retry: 'elsewhere',
  },
} as const satisfies StreamEvent;

/** The finish reason of a chunk's first choice: the chunk is parsed anyway, so this costs a lookup. */
function finishOf(chunk: JsonObject): FinishReason | undefined {
  const first = Array.isArray(chunk.choices) ? chunk.choices[0] : undefined;
  return isJsonObject(first) ? finishReasonOf(first.finish_reason) : undefined;
}

/**
 * OpenAI SSE in. A Chat Completions client gets each chunk as it came (`native`), plus what the
 * gateway meters and traces (usage, served tier, the model that answered and why it stopped); any other client gets the chunks decoded into the internal model.
 */
export function createOpenAIStreamTranslator(context: ResponseContext): StreamTranslator {
  const decoder = new SseDecoder();
  const chunks = new ChatChunkDecoder();
  const native = context.clientApi === 'openai-chat';
  let finished = false;
  let tierSeen = false;
  let started = false;

  function translate(data: string): StreamEvent[] {
    if (finished) return [];
    if (data === '[DONE]') {
      finished = true;
      return [{ type: 'done' }];
    }
    const parsed = parseJson(data);
    if (parsed === undefined) {
      finished = true;
      return [MALFORMED];
    }
    if (!isJsonObject(parsed)) return [];
    if (parsed.error !== undefined) {
      finished = true;
      return [{ type: 'error', failure: midStreamFailure(parsed.error) }];
    }
    if (!native) return chunks.decode(parsed);
    const usage = usageFromOpenAI(parsed.usage);
    const events: StreamEvent[] = [{ type: 'native', api: 'openai-chat', data: parsed }];
    if (!started && typeof parsed.id === 'string') {
      started = true;
      events.push({ type: 'start', id: parsed.id, ...servedModel(parsed.model) });
    }
    const tier = tierSeen ? undefined : servedTierOf(parsed.service_tier);
    if (tier) {
      tierSeen = true;
      events.push({ type: 'served_tier', tier });
    }
    const finish = finishOf(parsed);
    if (finish) events.push({ type: 'finish', reason: finish });
    if (usage) events.push({ type: 'usage', usage });
    return events;
  }

  return {
    push: (bytes) => decoder.push(bytes).flatMap((event) => translate(event.data)),
    end: () => decoder.end().flatMap((event) => translate(event.data)),
  };
}
