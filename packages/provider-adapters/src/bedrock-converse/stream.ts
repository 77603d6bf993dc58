/**
 * ConverseStream (AWS event-stream frames) in, internal stream events out. Frames are named by
 * `:event-type`; tool calls are numbered by their own count, not by content block, because a
 * text or thinking block may come before them. Payloads carry a `p` padding key (length
 * hiding), which is never read.
 */
import { randomUUID } from 'node:crypto';
import type { StreamTranslator } from '../adapter.ts';
import { isJsonObject, type JsonObject, parseJson } from '../json.ts';
import type { StreamEvent, UpstreamFailure } from '../model/response.ts';
import { mapStreamException } from './errors.ts';
import { CorruptFrameError, type DecodedFrame, EventStreamDecoder } from './event-stream.ts';
import { converseUsage, finishReason, servedTier } from './response.ts';

/** A stream cut short or garbled: the provider may have been working on it, so only elsewhere. */
const CORRUPT: UpstreamFailure = {
  kind: 'server',
  status: 502,
  message: 'the provider sent a corrupt stream frame.',
  retry: 'elsewhere',
};
const MALFORMED: UpstreamFailure = {
  kind: 'server',
  status: 502,
  message: 'the provider sent a malformed stream event.',
  retry: 'elsewhere',
};
const CUT_SHORT: UpstreamFailure = {
  kind: 'connection',
  status: 502,
  message: 'the provider’s stream ended early.',
  retry: 'elsewhere',
};

const UTF8 = new TextDecoder();

interface State {
  /** Content block index -> tool call index, and whether the call got any arguments. */
  readonly tools: Map<number, { index: number; hasArguments: boolean }>;
  stopped: boolean;
}

function blockIndex(payload: JsonObject): number {
  return typeof payload.contentBlockIndex === 'number' ? payload.contentBlockIndex : -1;
}

function blockStart(payload: JsonObject, state: State): StreamEvent[] {
  const start = isJsonObject(payload.start) ? payload.start : undefined;
  const toolUse = start !== undefined && isJsonObject(start.toolUse) ? start.toolUse : undefined;
  if (toolUse === undefined || typeof toolUse.toolUseId !== 'string' || typeof toolUse.name !== 'string')
    return [];
  const index = state.tools.size;
  state.tools.set(blockIndex(payload), { index, hasArguments: false });
  return [{ type: 'tool_call_start', index, id: toolUse.toolUseId, name: toolUse.name }];
}

function reasoningDelta(reasoning: JsonObject): StreamEvent[] {
  if (typeof reasoning.redactedContent === 'string')
    return [{ type: 'redacted_thinking', data: reasoning.redactedContent }];
  const events: StreamEvent[] = [];
  if (typeof reasoning.text === 'string') events.push({ type: 'thinking', text: reasoning.text });
  if (typeof reasoning.signature === 'string')
    events.push({ type: 'thinking', signature: reasoning.signature });
  return events;
}

function blockDelta(payload: JsonObject, state: State): StreamEvent[] {
  const delta = isJsonObject(payload.delta) ? payload.delta : {};
  if (typeof delta.text === 'string') return delta.text === '' ? [] : [{ type: 'text', text: delta.text }];
  if (isJsonObject(delta.reasoningContent)) return reasoningDelta(delta.reasoningContent);
  const tool = state.tools.get(blockIndex(payload));
  const input = isJsonObject(delta.toolUse) ? delta.toolUse.input : undefined;
  if (tool === undefined || typeof input !== 'string' || input === '') return [];
  tool.hasArguments = true;
  return [{ type: 'tool_call_delta', index: tool.index, arguments: input }];
}

/** A call without arguments still needs valid JSON for them. */
function blockStop(payload: JsonObject, state: State): StreamEvent[] {
  const tool = state.tools.get(blockIndex(payload));
  if (tool === undefined || tool.hasArguments) return [];
  tool.hasArguments = true;
  return [{ type: 'tool_call_delta', index: tool.index, arguments: '{}' }];
}

function metadata(payload: JsonObject): StreamEvent[] {
  const events: StreamEvent[] = [];
  const usage = converseUsage(payload.usage);
  if (usage !== undefined) events.push({ type: 'usage', usage });
  const tier = servedTier(payload.serviceTier);
  if (tier !== undefined) events.push({ type: 'served_tier', tier });
  events.push({ type: 'done' });
  return events;
}

function eventFrame(type: string, payload: JsonObject, state: State): StreamEvent[] {
  switch (type) {
    case 'messageStart':
      return [{ type: 'start', id: `bedrock-${randomUUID()}` }];
    case 'contentBlockStart':
      return blockStart(payload, state);
    case 'contentBlockDelta':
      return blockDelta(payload, state);
    case 'contentBlockStop':
      return blockStop(payload, state);
    case 'messageStop':
      state.stopped = true;
      return [{ type: 'finish', reason: finishReason(payload.stopReason) }];
    case 'metadata':
      return metadata(payload);
    default:
      // Event types added to the API later are not ours to guess at.
      return [];
  }
}

function frameEvents(frame: DecodedFrame, state: State): StreamEvent[] {
  const payload = parseJson(UTF8.decode(frame.payload));
  const messageType = frame.headers[':message-type'];
  if (messageType === 'exception') {
    return [{ type: 'error', failure: mapStreamException(frame.headers[':exception-type'] ?? '', payload) }];
  }
  if (messageType !== 'event') return [{ type: 'error', failure: mapStreamException('', payload) }];
  if (!isJsonObject(payload)) return [{ type: 'error', failure: MALFORMED }];
  return eventFrame(frame.headers[':event-type'] ?? '', payload, state);
}

export function createConverseStreamTranslator(): StreamTranslator {
  const decoder = new EventStreamDecoder();
  const state: State = { tools: new Map(), stopped: false };
  let finished = false;

  function translate(): StreamEvent[] {
    const out: StreamEvent[] = [];
    try {
      for (let frame = decoder.next(); frame !== undefined && !finished; frame = decoder.next()) {
        for (const event of frameEvents(frame, state)) {
          out.push(event);
          if (event.type === 'error' || event.type === 'done') {
            finished = true;
            break;
          }
        }
      }
    } catch (error) {
      if (!(error instanceof CorruptFrameError)) throw error;
      finished = true;
      out.push({ type: 'error', failure: CORRUPT });
    }
    return out;
  }

  return {
    push(bytes) {
      if (finished) return [];
      decoder.append(bytes);
      return translate();
    },
    end() {
      if (finished) return [];
      finished = true;
      // After messageStop the answer is whole; only the usage frame is missing.
      return state.stopped && decoder.pending === 0
        ? [{ type: 'done' }]
        : [{ type: 'error', failure: CUT_SHORT }];
    },
  };
}
