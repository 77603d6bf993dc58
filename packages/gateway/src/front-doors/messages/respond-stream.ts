/**
 * `stream: true`: Anthropic's event stream. An Anthropic-API upstream's events are forwarded as
 * they came (the model renamed to the gateway's, its own error text replaced); another API's are
 * encoded into the same sequence. The session itself (commit, keep-alive, metering, endings) is
 * the pipeline's.
 */
import { anthropicMessages, isJsonObject, type JsonObject } from '@app/provider-adapters';
import { withCost } from '../../pipeline/answer-cost.ts';
import type { CostNow, NativeEvent, StreamDialect } from '../../pipeline/stream-dialect.ts';
import type { UpstreamCall } from '../../pipeline/upstream-call.ts';
import { anthropicErrorEvent } from './anthropic-errors.ts';
import { messageId } from './respond-json.ts';

/** Characters of generated text in one native event (text, thinking, tool input). */
function deltaChars(data: JsonObject): number {
  const delta = isJsonObject(data.delta) ? data.delta : undefined;
  if (!delta) return 0;
  for (const key of ['text', 'thinking', 'partial_json'])
    if (typeof delta[key] === 'string') return (delta[key] as string).length;
  return 0;
}

/** `message_delta` carries the message's final usage: the request's cost goes beside it. */
function withDeltaCost(event: anthropicMessages.MessagesSseEvent, cost: CostNow) {
  return event.event === 'message_delta' ? { ...event, data: withCost(event.data, 'usage', cost()) } : event;
}

function nativeEvent(event: NativeEvent, model: string, cost: CostNow): { text: string; chars: number } {
  const name = event.event ?? String(event.data.type);
  // The upstream's own error text may describe its internals: the gateway's event replaces it.
  if (name === 'error') return { text: '', chars: 0 };
  const data = event.data;
  const out =
    name === 'message_start' && isJsonObject(data.message)
      ? { ...data, message: { ...data.message, model } }
      : data;
  const wire = withDeltaCost({ event: name, data: out }, cost);
  return { text: anthropicMessages.formatMessagesEvent(wire), chars: deltaChars(data) };
}

export function messagesDialect(call: UpstreamCall): StreamDialect {
  const { plan, reply } = call.init;
  const encoder = new anthropicMessages.MessagesEventEncoder({
    id: messageId(reply.request),
    model: plan.model,
  });
  return {
    native: (event, cost) => nativeEvent(event, plan.model, cost),
    encode: (event, cost) =>
      encoder
        .encode(event)
        .map((out) => anthropicMessages.formatMessagesEvent(withDeltaCost(out, cost)))
        .join(''),
    // message_stop is itself an event (native, or encoded from `done`).
    terminator: '',
    completeOnUsage: false,
    errorEvent: (error) => anthropicErrorEvent(error, reply.request.id),
  };
}
