import type { ResponseContext, StreamEvent, StreamTranslator } from '../adapter.ts';
import { type ChatCompletionChunk, isJsonObject, type JsonObject } from '../openai-types.ts';
import { SseDecoder } from '../sse.ts';
import { tokenUsageFromOpenAI } from '../usage.ts';
import { mapOpenAIStreamError } from './errors.ts';

const MALFORMED = {
  type: 'error',
  failure: { kind: 'server', status: 502, message: 'the provider sent a malformed stream event.' },
} as const satisfies StreamEvent;

/**
 * OpenAI SSE in, OpenAI chunks out. The gateway always asks for usage, so chunks are shaped
 * as the client would have received them: `usage: null` on every chunk when it asked for
 * usage, no `usage` key when it did not, and the usage chunk itself forwarded only if asked.
 */
export function createOpenAIStreamTranslator(context: ResponseContext): StreamTranslator {
  const decoder = new SseDecoder();
  let finished = false;

  function translate(data: string): StreamEvent[] {
    if (finished) return [];
    if (data === '[DONE]') {
      finished = true;
      return [{ type: 'done' }];
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(data);
    } catch {
      finished = true;
      return [MALFORMED];
    }
    if (!isJsonObject(parsed)) return [];
    if (parsed.error !== undefined) {
      finished = true;
      return [{ type: 'error', failure: mapOpenAIStreamError(parsed.error) }];
    }
    return chunkEvents(parsed, context);
  }

  return {
    push: (bytes) => decoder.push(bytes).flatMap((event) => translate(event.data)),
    end: () => decoder.end().flatMap((event) => translate(event.data)),
  };
}

/** One upstream chunk, shaped as the client asked (usage on it, or in a chunk of its own). */
function chunkEvents(parsed: JsonObject, context: ResponseContext): StreamEvent[] {
  const { usage: rawUsage, ...rest } = parsed;
  const choices = Array.isArray(rest.choices) ? rest.choices.filter(isJsonObject) : [];
  const base: ChatCompletionChunk = {
    ...rest,
    id: typeof rest.id === 'string' ? rest.id : '',
    object: 'chat.completion.chunk',
    created: typeof rest.created === 'number' ? rest.created : 0,
    model: context.model,
    choices,
  };
  const events: StreamEvent[] = [];
  const usage = tokenUsageFromOpenAI(rawUsage);
  // Some servers put usage on the last content chunk instead of a chunk of its own.
  if (choices.length > 0 || usage === undefined) {
    events.push({ type: 'chunk', chunk: context.includeUsage ? { ...base, usage: null } : base });
  }
  if (usage !== undefined) {
    const chunk = context.includeUsage
      ? ({ ...base, choices: [], usage: rawUsage } as ChatCompletionChunk)
      : undefined;
    events.push({ type: 'usage', usage, chunk });
  }
  return events;
}
