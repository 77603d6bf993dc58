/** The internal model -> OpenAI Chat Completions responses and chunks, for the chat front door. */
import type { JsonObject } from '../../json.ts';
import type { Citation } from '../../model/content.ts';
import type { FinishReason, ModelResponse, StreamEvent } from '../../model/response.ts';
import { packToolCallId } from '../../model/tool-call-id.ts';
import type { Usage } from '../../model/usage.ts';
import type { ChatCompletion, ChatCompletionChunk, OpenAIUsage } from './types.ts';
import { usageToOpenAI } from './usage.ts';

export interface ChatEnvelope {
  readonly id: string;
  /** The model name the client is shown (the gateway's exact version). */
  readonly model: string;
  readonly created: number;
}

/** `pause` (a server tool wants the turn continued) has no OpenAI name; the turn did stop. */
function finishReason(reason: FinishReason): string {
  return reason === 'pause' ? 'stop' : reason;
}

function annotations(citations: readonly Citation[]): JsonObject[] {
  return citations.map((cite) => ({
    type: 'url_citation',
    url_citation: {
      url: cite.url,
      title: cite.title ?? '',
      start_index: cite.startIndex ?? 0,
      end_index: cite.endIndex ?? 0,
    },
  }));
}

export function encodeChatCompletion(response: ModelResponse, envelope: ChatEnvelope): ChatCompletion {
  let text = '';
  const cites: Citation[] = [];
  const calls: JsonObject[] = [];
  for (const part of response.content) {
    if (part.type === 'text') {
      text += part.text;
      cites.push(...(part.citations ?? []));
    } else if (part.type === 'tool_call') {
      const id = packToolCallId(part.id, part.signature);
      calls.push({ id, type: 'function', function: { name: part.name, arguments: part.arguments } });
    }
  }
  const message: JsonObject = {
    role: 'assistant',
    content: text === '' && calls.length > 0 ? null : text,
    refusal: null,
    ...(calls.length > 0 ? { tool_calls: calls } : {}),
    ...(cites.length > 0 ? { annotations: annotations(cites) } : {}),
  };
  const usage = response.usage ? { usage: usageToOpenAI(response.usage) } : {};
  return {
    id: envelope.id,
    object: 'chat.completion',
    created: envelope.created,
    model: envelope.model,
    choices: [{ index: 0, message, logprobs: null, finish_reason: finishReason(response.finishReason) }],
    ...usage,
    ...(response.servedTier
      ? { service_tier: response.servedTier === 'standard' ? 'default' : response.servedTier }
      : {}),
  };
}

/**
 * Events -> chunks exactly as OpenAI streams them: a role chunk first, content and tool-call
 * deltas (index, id and name once, arguments in pieces), a finish chunk, and, when the client
 * asked with `include_usage`, `usage: null` on every chunk and a final `choices: []` usage chunk.
 */
export class ChatChunkEncoder {
  readonly #envelope: ChatEnvelope;
  readonly #includeUsage: boolean;
  #started = false;
  #usage: Usage | undefined;

  constructor(envelope: ChatEnvelope, includeUsage: boolean) {
    this.#envelope = envelope;
    this.#includeUsage = includeUsage;
  }

  /** The chunks for one event; `done` yields the usage chunk (if asked). */
  encode(event: StreamEvent): ChatCompletionChunk[] {
    switch (event.type) {
      case 'text':
        return this.#delta({ content: event.text });
      case 'tool_call_start': {
        const id = packToolCallId(event.id, event.signature);
        const call = {
          index: event.index,
          id,
          type: 'function',
          function: { name: event.name, arguments: '' },
        };
        return this.#delta({ tool_calls: [call] });
      }
      case 'tool_call_delta':
        return this.#delta({
          tool_calls: [{ index: event.index, function: { arguments: event.arguments } }],
        });
      case 'finish':
        return [
          ...this.#opening(),
          this.#chunk([{ index: 0, delta: {}, logprobs: null, finish_reason: finishReason(event.reason) }]),
        ];
      case 'usage':
        this.#usage = event.usage;
        return [];
      case 'done':
        return this.#includeUsage && this.#usage ? [this.#chunk([], usageToOpenAI(this.#usage))] : [];
      default:
        return [];
    }
  }

  #delta(delta: JsonObject): ChatCompletionChunk[] {
    return [...this.#opening(), this.#chunk([{ index: 0, delta, logprobs: null, finish_reason: null }])];
  }

  #opening(): ChatCompletionChunk[] {
    if (this.#started) return [];
    this.#started = true;
    return [
      this.#chunk([
        { index: 0, delta: { role: 'assistant', content: '' }, logprobs: null, finish_reason: null },
      ]),
    ];
  }

  #chunk(choices: JsonObject[], usage?: OpenAIUsage): ChatCompletionChunk {
    const { id, created, model } = this.#envelope;
    const base = { id, object: 'chat.completion.chunk' as const, created, model, choices };
    if (usage) return { ...base, usage };
    return this.#includeUsage ? { ...base, usage: null } : base;
  }
}
