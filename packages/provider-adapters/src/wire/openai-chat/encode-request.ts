/** The internal model -> an OpenAI Chat Completions request body (for OpenAI-API upstreams). */
import type { JsonObject } from '../../json.ts';
import type { MediaSource, Part, Turn } from '../../model/content.ts';
import type { ModelRequest, Tool, ToolChoice } from '../../model/request.ts';
import { boundedCallId, wireCallIds } from '../../model/tool-call-id.ts';
import { WireDecodeError } from './decode-request.ts';

/** OpenAI refuses longer tool call ids (`string_above_max_length`). */
const MAX_CALL_ID = 40;

function url(source: MediaSource): string {
  return source.kind === 'url' ? source.url : `data:${source.mediaType};base64,${source.data}`;
}

function userPart(part: Part): JsonObject {
  switch (part.type) {
    case 'text':
      return { type: 'text', text: part.text };
    case 'image':
      return {
        type: 'image_url',
        image_url: { url: url(part.source), ...(part.detail ? { detail: part.detail } : {}) },
      };
    case 'document':
      return {
        type: 'file',
        file: { file_data: url(part.source), ...(part.name ? { filename: part.name } : {}) },
      };
    default:
      throw new WireDecodeError(`a ${part.type} part cannot be sent to this provider in a user turn`);
  }
}

function toolResultText(part: Extract<Part, { type: 'tool_result' }>): unknown {
  if (part.content.every((item) => item.type === 'text'))
    return part.content.map((item) => item.text).join('');
  return part.content.map(userPart);
}

function userMessages(turn: Turn, callIds: ReadonlyMap<string, string>): JsonObject[] {
  const out: JsonObject[] = [];
  let pending: JsonObject[] = [];
  const flush = () => {
    if (pending.length > 0) out.push({ role: 'user', content: pending });
    pending = [];
  };
  for (const part of turn.content) {
    if (part.type === 'tool_result') {
      flush();
      const id = callIds.get(part.callId) ?? boundedCallId(part.callId, MAX_CALL_ID);
      out.push({ role: 'tool', tool_call_id: id, content: toolResultText(part) });
    } else if (part.type !== 'thinking' && part.type !== 'redacted_thinking') {
      pending.push(userPart(part));
    }
  }
  flush();
  return out;
}

function assistantMessage(turn: Turn, callIds: ReadonlyMap<string, string>): JsonObject {
  const text = turn.content
    .filter((part) => part.type === 'text')
    .map((part) => part.text)
    .join('');
  const calls = turn.content
    .filter((part) => part.type === 'tool_call')
    .map((part) => ({
      id: callIds.get(part.id) ?? part.id,
      type: 'function',
      function: { name: part.name, arguments: part.arguments },
    }));
  return {
    role: 'assistant',
    content: text === '' ? null : text,
    ...(calls.length > 0 ? { tool_calls: calls } : {}),
  };
}

function tool(entry: Tool): JsonObject | undefined {
  if (entry.type !== 'function') return undefined;
  return {
    type: 'function',
    function: {
      name: entry.name,
      parameters: entry.parameters,
      ...(entry.description === undefined ? {} : { description: entry.description }),
      ...(entry.strict === undefined ? {} : { strict: entry.strict }),
    },
  };
}

function choice(value: ToolChoice): unknown {
  return value.type === 'tool' ? { type: 'function', function: { name: value.name } } : value.type;
}

function webSearchOptions(tools: readonly Tool[]): JsonObject | undefined {
  const search = tools.find((entry) => entry.type === 'web_search');
  if (!search) return undefined;
  return {
    ...(search.contextSize ? { search_context_size: search.contextSize } : {}),
    ...(search.userLocation ? { user_location: search.userLocation } : {}),
  };
}

export function encodeChatRequest(request: ModelRequest, model: string): JsonObject {
  const system = request.system.map((part) => part.text).join('\n\n');
  const messages: JsonObject[] = system === '' ? [] : [{ role: 'system', content: system }];
  const callIds = wireCallIds(request.turns, MAX_CALL_ID);
  for (const turn of request.turns)
    messages.push(
      ...(turn.role === 'user' ? userMessages(turn, callIds) : [assistantMessage(turn, callIds)]),
    );
  const tools = request.tools.map(tool).filter((entry) => entry !== undefined);
  const optional: JsonObject = {
    tools: tools.length > 0 ? tools : undefined,
    tool_choice: request.toolChoice ? choice(request.toolChoice) : undefined,
    parallel_tool_calls: tools.length > 0 ? request.parallelToolCalls : undefined,
    max_completion_tokens: request.maxOutputTokens,
    temperature: request.temperature,
    top_p: request.topP,
    stop: request.stop,
    response_format: request.responseFormat ? responseFormat(request.responseFormat) : undefined,
    web_search_options: webSearchOptions(request.tools),
    user: request.user,
  };
  const defined = Object.fromEntries(Object.entries(optional).filter(([, value]) => value !== undefined));
  return { model, messages, ...defined, ...(request.stream ? { stream: true } : {}) };
}

function responseFormat(format: NonNullable<ModelRequest['responseFormat']>): JsonObject {
  if (format.type !== 'json_schema') return { type: format.type };
  return {
    type: 'json_schema',
    json_schema: {
      name: format.name,
      schema: format.schema,
      ...(format.strict === undefined ? {} : { strict: format.strict }),
    },
  };
}
