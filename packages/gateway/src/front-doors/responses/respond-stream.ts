/**
 * `stream: true`: the Responses event stream. A Responses-API upstream's events are forwarded as
 * they came (the model renamed to the gateway's, its own failure text replaced); another API's
 * are encoded into the same sequence. The session itself (commit, keep-alive, metering, endings)
 * is the pipeline's.
 */
import { isJsonObject, type JsonObject, openAIResponses } from '@app/provider-adapters';
import { withCost } from '../../pipeline/answer-cost.ts';
import type { CostNow, NativeEvent, StreamDialect } from '../../pipeline/stream-dialect.ts';
import type { UpstreamCall } from '../../pipeline/upstream-call.ts';
import type { ResponsesRequestBody } from './request-schema.ts';
import { responseEnvelope } from './respond-json.ts';

/** The upstream's own failure events: the gateway's failure events replace them. */
const FAILURES = new Set(['error', 'response.failed']);

const DELTAS = new Set([
  'response.output_text.delta',
  'response.reasoning_summary_text.delta',
  'response.reasoning_text.delta',
  'response.function_call_arguments.delta',
]);

/** The events that end a response carry its final usage: the request's cost goes beside it. */
const ENDINGS = new Set(['response.completed', 'response.incomplete']);

/** `response` (of an ending event) with the cost in its usage. */
function costed(name: string, response: JsonObject, cost: CostNow): JsonObject {
  return ENDINGS.has(name) ? withCost(response, 'usage', cost()) : response;
}

function nativeEvent(
  event: NativeEvent,
  model: string,
  encoder: openAIResponses.ResponsesEventEncoder,
  cost: CostNow,
): { text: string; chars: number } {
  const name = event.event ?? String(event.data.type);
  if (FAILURES.has(name)) return { text: '', chars: 0 };
  const upstream = event.data.response;
  const data: JsonObject = isJsonObject(upstream)
    ? {
        ...event.data,
        response: costed(name, { ...openAIResponses.withCacheWriteTokens(upstream), model }, cost),
      }
    : event.data;
  encoder.forwarded(data);
  const delta = DELTAS.has(name) && typeof data.delta === 'string' ? data.delta.length : 0;
  return { text: openAIResponses.formatResponsesEvent({ event: name, data }), chars: delta };
}

export function responsesDialect(call: UpstreamCall, body: ResponsesRequestBody): StreamDialect {
  const { plan, reply } = call.init;
  const encoder = new openAIResponses.ResponsesEventEncoder(
    responseEnvelope(reply.request, body, plan.model),
  );
  const format = (events: openAIResponses.ResponsesSseEvent[]) =>
    events.map(openAIResponses.formatResponsesEvent).join('');
  const withEndingCost = (out: openAIResponses.ResponsesSseEvent, cost: CostNow) =>
    ENDINGS.has(out.event) && isJsonObject(out.data.response)
      ? { ...out, data: { ...out.data, response: costed(out.event, out.data.response, cost) } }
      : out;
  return {
    native: (event, cost) => nativeEvent(event, plan.model, encoder, cost),
    encode: (event, cost) => format(encoder.encode(event).map((out) => withEndingCost(out, cost))),
    // response.completed is itself an event (native, or encoded from `done`).
    terminator: '',
    completeOnUsage: false,
    errorEvent: (error) =>
      format(
        encoder.fail({
          code: error.code,
          message: error.message,
          type: error.type,
          param: error.param ?? undefined,
        }),
      ),
  };
}
